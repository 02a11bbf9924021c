package workflows

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// SubsumeRequest is the input of SubsumeCheckpoint.
type SubsumeRequest struct {
	stores.CheckpointID
	Epoch uint64 `json:"epoch"`
	// Owner is the claimant of Epoch: only the standing claim removes.
	Owner     string `json:"owner"`
	HandleKey string `json:"handleKey"`
	Savepoint bool   `json:"savepoint,omitempty"`
}

// WorkflowID names the removal of one checkpoint.
func (r SubsumeRequest) WorkflowID() string {
	return fmt.Sprintf("subsume/%s/%s/%d", r.Cluster, r.Job, r.Checkpoint)
}

// SubsumeResult is the result of SubsumeCheckpoint.
type SubsumeResult struct {
	// Deposed: the epoch was stale; nothing was removed or discarded.
	Deposed   bool                     `json:"deposed,omitempty"`
	Discarded activities.DiscardResult `json:"discarded"`
}

// SubsumeCheckpoint removes one reference and then its state: subsume
// (tombstone + watermark, epoch-conditional), confirmed by the activity's
// own retries (a retry after an Unknown re-reads and finds the tombstone),
// then discard. Never the other order: the state goes only once the
// reference cannot be read any more. A savepoint's data is never discarded.
//
// On the fast path both calls run as local activities, in one workflow
// task: the request is the plan, so a task retried after a crash runs the
// same idempotent calls again. Coordinators on the fast path remove through
// RemoveCheckpoints and start none; it serves coordinators on version 0.
func SubsumeCheckpoint(ctx workflow.Context, req SubsumeRequest) (SubsumeResult, error) {
	local := pathVersion(ctx) >= fastPathVersion
	phase := string(contract.Subsuming)
	if err := workflow.SetQueryHandler(ctx, contract.StatusQuery, func() (string, error) { return phase, nil }); err != nil {
		return SubsumeResult{}, err
	}
	upsertPhase := func(p string) {
		phase = p
		_ = workflow.UpsertTypedSearchAttributes(ctx,
			contract.AttrCluster.ValueSet(req.Cluster), contract.AttrJob.ValueSet(req.Job), contract.AttrEpoch.ValueSet(int64(req.Epoch)),
			contract.AttrCheckpoint.ValueSet(int64(req.Checkpoint)), contract.AttrPhase.ValueSet(p), contract.AttrPhaseSince.ValueSet(workflow.Now(ctx)))
	}
	upsertPhase(string(contract.Subsuming))
	if err := validated(ctx, contract.ValidateOwner(req.Owner)); err != nil {
		upsertPhase("Failed")
		return SubsumeResult{}, temporal.NewNonRetryableApplicationError("subsume checkpoint: "+err.Error(), contract.TypeInvalid, err)
	}

	in := activities.SubsumeInput{CheckpointID: req.CheckpointID, Epoch: req.Epoch, Owner: req.Owner}
	err := storeCall.execute(ctx, local, a.Subsume, in).Get(ctx, nil)
	var app *temporal.ApplicationError
	switch {
	case err == nil:
	case errors.As(err, &app) && app.Type() == contract.TypeStaleEpoch:
		upsertPhase("Deposed")
		return SubsumeResult{Deposed: true}, nil
	default:
		// Only a definite rejection ends the retries; keep the state.
		upsertPhase("Failed")
		return SubsumeResult{}, fmt.Errorf("subsume checkpoint %s: %w", req.CheckpointID, err)
	}

	upsertPhase("Discarding")
	var res SubsumeResult
	if err := discardCall.execute(ctx, local, a.Discard, activities.HandleKey(req.HandleKey)).Get(ctx, &res.Discarded); err != nil {
		upsertPhase("Failed")
		return res, fmt.Errorf("discard subsumed checkpoint %s: %w", req.CheckpointID, err)
	}
	upsertPhase("Discarded")
	return res, nil
}
