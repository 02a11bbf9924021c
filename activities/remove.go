package activities

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// RemovalInput is one retention pass's removals, oldest first.
type RemovalInput struct {
	Job   stores.JobID `json:"job"`
	Epoch uint64       `json:"epoch"`
	Items []Removal    `json:"items"`
}

// Clusters is the cluster of the job (the worker's tenant gate).
func (in RemovalInput) Clusters() []string { return in.Job.Clusters() }

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
	// Kept lists the checkpoints whose reference is gone but whose state
	// stays: their handle could not be trusted, or their key says another
	// reference may point into their directory.
	Kept []KeptState `json:"kept,omitempty"`
}

// KeptState is state a removal left in place, and why.
type KeptState struct {
	Checkpoint uint64 `json:"checkpoint"`
	Reason     string `json:"reason"`
}

// discardRemoved discards the state of a removed reference through the
// guard. It returns why the state stays, "" once it is gone.
func (a *Activities) discardRemoved(ctx context.Context, handleKey string) (string, error) {
	res, err := a.Discard(ctx, HandleKey(handleKey))
	var app *temporal.ApplicationError
	if errors.As(err, &app) && (app.Type() == contract.TypeCorruptHandle || app.Type() == contract.TypeOutsideLayout) {
		return app.Message(), nil
	}
	return res.Kept, err
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
		CountStoreCall(ctx, "subsume", stores.OutcomeOf(err))
		switch {
		case errors.Is(err, stores.ErrStaleEpoch):
			res.Deposed = true
			return res, nil
		case err != nil:
			return res, Translate(err)
		}
		kept, err := a.discardRemoved(ctx, r.HandleKey)
		if err != nil {
			return res, fmt.Errorf("remove checkpoint %s: %w", id, err)
		}
		if kept != "" {
			res.Kept = append(res.Kept, KeptState{Checkpoint: r.Checkpoint, Reason: kept})
			continue
		}
		res.Removed++
	}
	return res, nil
}
