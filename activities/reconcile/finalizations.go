package reconcile

import (
	"context"

	"go.temporal.io/sdk/activity"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// DescribeInput names finalizations of one job to ask Temporal about.
type DescribeInput struct {
	stores.JobID
	// Finalizations are the job's (epoch, checkpoint) pairs; the activity
	// derives each workflow ID from them and the job, so that no other
	// job's or cluster's finalization can be asked for.
	Finalizations []FinalizationIdentity `json:"finalizations"`
}

// FinalizationIdentity is one finalization of a job.
type FinalizationIdentity struct {
	Epoch      uint64 `json:"epoch"`
	Checkpoint uint64 `json:"checkpoint"`
}

// DescribeFinalizations asks for each finalization in turn, answering in
// the input's order. A failure is retryable: it says nothing about the
// finalization.
func (a *Activities) DescribeFinalizations(ctx context.Context, in DescribeInput) ([]activities.FinalizationState, error) {
	defer activities.KeepAlive(ctx)()
	if err := a.wired(); err != nil {
		return nil, err
	}
	out := make([]activities.FinalizationState, 0, len(in.Finalizations))
	for i, f := range in.Finalizations {
		activity.RecordHeartbeat(ctx, i)
		id := contract.FinalizationID(stores.CheckpointID{JobID: in.JobID, Checkpoint: f.Checkpoint}, f.Epoch)
		st, err := a.Finalizations.Finalization(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}
