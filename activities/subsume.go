package activities

import (
	"context"
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// SubsumeInput names the checkpoint to remove.
type SubsumeInput struct {
	stores.CheckpointID
	Epoch uint64 `json:"epoch"`
	// Owner is the claimant of Epoch; only the standing claim removes.
	Owner string `json:"owner,omitempty"`
}

// Subsume turns the reference into a tombstone and raises the watermark. A
// retry after an Unknown re-reads the key: a subsumption that already
// landed is Published, which is how the workflow confirms it.
func (a *Activities) Subsume(ctx context.Context, in SubsumeInput) error {
	if err := claimant(ctx, a.References, in.JobID, in.Epoch, in.Owner); err != nil {
		return Translate(fmt.Errorf("subsume checkpoint %s: %w", in.CheckpointID, err))
	}
	err := a.References.Subsume(ctx, in.CheckpointID, in.Epoch)
	CountStoreCall(ctx, "subsume", stores.OutcomeOf(err))
	return Translate(err)
}

// RetentionView is what a retention pass decides on.
type RetentionView struct {
	// References are the job's published references, read linearizably:
	// the only ones retention counts.
	References []stores.Entry `json:"references"`
	// Retain is the worker's configured number of references to keep; 0
	// keeps everything.
	Retain int `json:"retain"`
	// Job is the job's state, read before the references: its standing
	// claim is the epoch removals are conditional on. A report never is.
	Job stores.JobState `json:"job"`
}

// ReadRetention reads the job's state, lists its references and the
// retention setting.
func (a *Activities) ReadRetention(ctx context.Context, job stores.JobID) (RetentionView, error) {
	st, err := a.References.ReadJob(ctx, job)
	if err != nil {
		return RetentionView{}, Translate(err)
	}
	entries, err := a.References.List(ctx, job)
	if err != nil {
		return RetentionView{}, Translate(err)
	}
	return RetentionView{References: entries, Retain: a.Retain, Job: st}, nil
}
