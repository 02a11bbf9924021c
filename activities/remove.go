package activities

import (
	"context"
	"errors"
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// RemovalInput is one retention pass's removals, oldest first.
type RemovalInput struct {
	Job   stores.JobID `json:"job"`
	Epoch uint64       `json:"epoch"`
	Items []Removal    `json:"items"`
	// Uncollected are earlier passes' removals whose subsumed tombstone is
	// still to collect (contract.CoordinatorState.Uncollected).
	Uncollected []Removal `json:"uncollected,omitempty"`
}

// Clusters is the cluster of the job (the worker's tenant gate).
func (in RemovalInput) Clusters() []string { return in.Job.Clusters() }

// Removal names a checkpoint to remove and the handle of its state.
type Removal = contract.Removal

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
	// Uncollected are the removals whose subsumed tombstone stays for now:
	// their finalization still runs (or Temporal did not say), and may
	// still verify. The next pass passes them again.
	Uncollected []Removal `json:"uncollected,omitempty"`
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
	if why := KeptBy(err); why != "" {
		return why, nil
	}
	return res.Kept, err
}

// RemoveCheckpoints removes a pass's checkpoints in order, each subsumed
// (tombstone + watermark, epoch-conditional) before its state is discarded,
// then its tombstone collected once its finalization has closed
// (collectSubsumed), so that what the store holds for a job stays bounded
// by its retention and its running finalizations. It is one regular
// activity, so the whole batch is durable once the pass decided it: a
// worker that dies halfway leaves the rest to the retry, which finds the
// finished ones done (a subsume sees its own tombstone or the key
// collected, a discard its handle gone). It heartbeats its progress.
func (a *Activities) RemoveCheckpoints(ctx context.Context, in RemovalInput) (RemovalResult, error) {
	var res RemovalResult
	for _, r := range in.Uncollected {
		if err := a.collectSubsumed(ctx, in.Job, r, &res); err != nil {
			return res, err
		}
	}
	for i, r := range in.Items {
		heartbeat(ctx, i)
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
		if err := a.collectSubsumed(ctx, in.Job, r, &res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// collectSubsumed collects the subsumed tombstone of a removal whose state
// is gone, once Temporal says the finalization that published it has
// closed: no verify of its token can come any more, so the tombstone has
// served its one purpose (I7). The finalization's ID and token derive from
// the handle key, never from a report. One that still runs, or that
// Temporal did not answer for, goes to res.Uncollected; a key holding
// anything else is left to the reconciler's collection.
func (a *Activities) collectSubsumed(ctx context.Context, job stores.JobID, r Removal, res *RemovalResult) error {
	if a.Finalizations == nil {
		return nil
	}
	id, epoch, err := blobstate.ParseKey(r.HandleKey)
	if err != nil || id != (stores.CheckpointID{JobID: job, Checkpoint: r.Checkpoint}) {
		return nil // not a handle of this key: its tombstone is not ours to judge
	}
	st, err := a.Finalizations.Finalization(ctx, contract.FinalizationID(id, epoch))
	if err != nil || st.Running {
		if err != nil {
			loggerOf(ctx).Warn("finalization not described; its subsumed tombstone stays for the next pass", "checkpoint", id, "error", err)
		}
		res.Uncollected = append(res.Uncollected, r)
		return nil
	}
	err = a.References.CollectSubsumed(ctx, id, contract.Token(id, epoch))
	CountStoreCall(ctx, "collect", stores.OutcomeOf(err))
	if stores.OutcomeOf(err) == stores.Rejected {
		return nil
	}
	return Translate(err)
}
