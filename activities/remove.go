package activities

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// RemovalInput is one retention pass's removals, oldest first.
type RemovalInput struct {
	Job   stores.JobID `json:"job"`
	Epoch uint64       `json:"epoch"`
	Items []Removal    `json:"items"`
}

// Removal names a checkpoint to remove and the handle of its state.
type Removal struct {
	Checkpoint uint64 `json:"checkpoint"`
	HandleKey  string `json:"handleKey"`
}

// RemovalResult says what a pass removed.
type RemovalResult struct {
	// Removed counts the checkpoints subsumed and discarded (a retry
	// counts again the ones an earlier try finished).
	Removed int `json:"removed"`
	// Deposed: a subsume was refused for a stale epoch; nothing after it
	// was touched.
	Deposed bool `json:"deposed,omitempty"`
	// Kept lists the checkpoints whose handle could not be trusted: their
	// reference is gone, their state kept for an operator.
	Kept []uint64 `json:"kept,omitempty"`
}

// RemoveCheckpoints removes a pass's checkpoints in order, each subsumed
// (tombstone + watermark, epoch-conditional) before its state is discarded.
// It is one regular activity, so the whole batch is durable once the pass
// decided it: a worker that dies halfway leaves the rest to the retry,
// which finds the finished ones done (a subsume sees its own tombstone, a
// discard its handle gone). It heartbeats its progress.
func (a *Activities) RemoveCheckpoints(ctx context.Context, in RemovalInput) (RemovalResult, error) {
	var res RemovalResult
	for i, r := range in.Items {
		activity.RecordHeartbeat(ctx, i)
		id := stores.CheckpointID{JobID: in.Job, Checkpoint: r.Checkpoint}
		err := a.References.Subsume(ctx, id, in.Epoch)
		count(ctx, "subsume", stores.OutcomeOf(err))
		switch {
		case errors.Is(err, stores.ErrStaleEpoch):
			res.Deposed = true
			return res, nil
		case err != nil:
			return res, translate(err)
		}
		if _, err := a.Discard(ctx, r.HandleKey); err != nil {
			var app *temporal.ApplicationError
			if errors.As(err, &app) && app.Type() == TypeCorruptHandle {
				res.Kept = append(res.Kept, r.Checkpoint)
				continue
			}
			return res, fmt.Errorf("remove checkpoint %s: %w", id, err)
		}
		res.Removed++
	}
	return res, nil
}
