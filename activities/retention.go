package activities

import (
	"context"
	"fmt"
	"sort"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// RetentionPlan splits a job's published references (verified present)
// into those to keep and those to remove, oldest first: the newest n count
// (savepoints included), and the newest non-savepoint is always kept, so a
// job can recover from a checkpoint even when savepoints fill the window.
func RetentionPlan(entries []stores.Entry, n int) (keep []uint64, remove []stores.Entry) {
	sorted := append([]stores.Entry(nil), entries...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Checkpoint > sorted[j].Checkpoint })
	newestCheckpoint := -1
	for i, e := range sorted {
		if !e.Reference.Savepoint {
			newestCheckpoint = i
			break
		}
	}
	for i, e := range sorted {
		if i < n || i == newestCheckpoint {
			keep = append(keep, e.Checkpoint)
			continue
		}
		remove = append(remove, e)
	}
	sort.Slice(remove, func(i, j int) bool { return remove[i].Checkpoint < remove[j].Checkpoint })
	return keep, remove
}

// Removals names the published references to remove and their handles.
func Removals(refs []stores.Entry) []Removal {
	var out []Removal
	for _, e := range refs {
		out = append(out, Removal{Checkpoint: e.Checkpoint, HandleKey: e.Reference.Handle})
	}
	return out
}

// RetentionQueue takes the jobs whose retention a publish may have
// changed. The worker drains each in its own process, off the
// finalization's path (DrainRetention); Enqueue never blocks.
type RetentionQueue interface {
	Enqueue(job stores.JobID)
}

// DrainRetention is one retention pass over a job, run by the worker in the
// background after a publish: no workflow and no activity of it is
// recorded, so an uneventful finalization costs Temporal nothing for its
// retention. What it must finish is recorded in the store, so that a
// worker dying halfway leaves nothing only it knew of:
//   - references beyond retention (RetentionPlan over the published
//     references read linearizably) are subsumed, conditional on the
//     job's standing claim as the store reports it, then their state is
//     discarded through the guard and their tombstone collected once
//     their finalization has closed (RemoveCheckpoints);
//   - a subsumed tombstone an earlier pass left (cut off before its
//     discard, or its finalization still running then) is found again in
//     the store: its state is discarded, again through the guard, and its
//     tombstone collected. Its handle is the standing epoch's; a
//     tombstone of another epoch's token is left to the reconciler.
//
// Every step is idempotent and conditional, so passes of the same job on
// several workers, or beside a coordinator's, only find each other's work
// done. A job never claimed, forgotten or retired has nothing to remove.
func (a *Activities) DrainRetention(ctx context.Context, job stores.JobID) (RemovalResult, error) {
	var res RemovalResult
	if a.Retain <= 0 {
		return res, nil
	}
	st, err := a.References.ReadJob(ctx, job)
	if err != nil {
		return res, fmt.Errorf("retention of %s: %w", job, err)
	}
	if st.Owner == "" || st.Retired {
		return res, nil
	}
	entries, err := a.References.ListEntries(ctx, job)
	if err != nil {
		return res, fmt.Errorf("retention of %s: %w", job, err)
	}
	var refs []stores.Entry
	for _, e := range entries {
		if e.Reference != nil {
			refs = append(refs, e)
			continue
		}
		if err := a.finishRemoval(ctx, job, st, e, &res); err != nil {
			return res, fmt.Errorf("retention of %s: %w", job, err)
		}
	}
	_, remove := RetentionPlan(refs, a.Retain)
	removed, err := a.RemoveCheckpoints(ctx, RemovalInput{Job: job, Epoch: st.Epoch, Items: Removals(remove)})
	res.Removed, res.Deposed = removed.Removed, removed.Deposed
	res.Kept = append(res.Kept, removed.Kept...)
	res.Uncollected = append(res.Uncollected, removed.Uncollected...)
	if err != nil {
		return res, fmt.Errorf("retention of %s: %w", job, err)
	}
	return res, nil
}

// finishRemoval finishes what a removal left at a subsumed tombstone of the
// standing epoch's token: the state's discard, then the tombstone's
// collection. Any other key is not a removal's to finish.
func (a *Activities) finishRemoval(ctx context.Context, job stores.JobID, st stores.JobState, e stores.Entry, res *RemovalResult) error {
	t := e.Tombstone
	id := stores.CheckpointID{JobID: job, Checkpoint: e.Checkpoint}
	if t == nil || t.Reason != stores.ReasonSubsumed || t.Token == "" || t.Token != contract.Token(id, st.Epoch) {
		return nil
	}
	r := Removal{Checkpoint: e.Checkpoint, HandleKey: blobstate.Key(id, st.Epoch)}
	kept, err := a.discardRemoved(ctx, r.HandleKey)
	switch {
	case err != nil:
		return fmt.Errorf("finish removing checkpoint %s: %w", id, err)
	case kept != "":
		res.Kept = append(res.Kept, KeptState{Checkpoint: e.Checkpoint, Reason: kept})
		return nil
	}
	return a.collectSubsumed(ctx, job, r, res)
}
