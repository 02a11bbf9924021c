package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// DefaultInventoryLimit bounds each list of one job's inventory, so that
// a job with a large leak still fits a Temporal payload; what is left over
// waits for the next run.
const DefaultInventoryLimit = 1000

// ListJobsInput names the cluster whose jobs to list.
type ListJobsInput struct {
	Cluster string `json:"cluster"`
}

// Clusters is the cluster listed (the worker's tenant gate).
func (in ListJobsInput) Clusters() []string { return []string{in.Cluster} }

// ListClusterJobs lists the cluster's jobs the HA store knows or the state
// bucket holds handles of: a job whose references are all gone can still
// have orphaned state.
func (a *Activities) ListClusterJobs(ctx context.Context, in ListJobsInput) ([]stores.JobID, error) {
	defer activities.KeepAlive(ctx)()
	if err := a.wired(); err != nil {
		return nil, err
	}
	fromStore, err := a.Inventory.ListJobs(ctx, in.Cluster)
	if err != nil {
		return nil, activities.Translate(err)
	}
	fromBucket, err := a.Handles.HandleJobs(ctx, in.Cluster)
	if err != nil {
		return nil, bucketError(err)
	}
	return stores.SortJobs(append(fromStore, fromBucket...)), nil
}

// InventoryInput names the job to take stock of. The cutoffs come from the
// workflow, so that a retried activity decides alike; each is only an
// upper bound, the worker's Floors the lower one (Activities.cutoff).
type InventoryInput struct {
	stores.JobID
	// GraceCutoff: a handle written at or after it is young, its
	// finalization possibly still in flight; only older ones can be orphans.
	GraceCutoff time.Time `json:"graceCutoff"`
	// TombstoneCutoff: tombstones written before it may be collected.
	TombstoneCutoff time.Time `json:"tombstoneCutoff"`
	// Limit bounds each list of the result; 0 is DefaultInventoryLimit.
	Limit int `json:"limit,omitempty"`
}

// JobInventory is what one job's keys and handle blobs say.
type JobInventory struct {
	stores.JobID
	State      stores.JobState `json:"state"`
	Published  int             `json:"published"`
	Tombstones int             `json:"tombstones"`
	// Dangling are published references whose handle or data is missing or
	// corrupt.
	Dangling []DanglingReference `json:"dangling,omitempty"`
	// Orphans are handle blobs older than the grace period that no
	// published reference points at. The workflow still checks each one's
	// token and finalization.
	Orphans []OrphanCandidate `json:"orphans,omitempty"`
	// Collectable are the tombstones a collection at TombstoneCutoff
	// would delete.
	Collectable []uint64 `json:"collectable,omitempty"`
	// Forget: that collection would forget the retired job (its ID free
	// for a new incarnation), even with nothing to collect.
	Forget bool `json:"forget,omitempty"`
	// Foreign are keys under the job's handle prefix that are not handle keys.
	Foreign []string `json:"foreign,omitempty"`
	// Young counts unreferenced handles still inside the grace period.
	Young int `json:"young,omitempty"`
	// Truncated: a list reached the limit; the rest waits for the next run.
	Truncated bool `json:"truncated,omitempty"`
}

// InventoryJob reads the job's keys and handle blobs and reports dangling
// references, orphan candidates and collectable tombstones. It writes
// nothing.
func (a *Activities) InventoryJob(ctx context.Context, in InventoryInput) (JobInventory, error) {
	defer activities.KeepAlive(ctx)()
	if err := a.wired(); err != nil {
		return JobInventory{}, err
	}
	in.GraceCutoff = a.cutoff(in.GraceCutoff, a.Floors.Grace)
	in.TombstoneCutoff = a.cutoff(in.TombstoneCutoff, a.Floors.TombstoneTTL)
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultInventoryLimit
	}
	inv := JobInventory{JobID: in.JobID}
	entries, err := a.Inventory.ListEntries(ctx, in.JobID)
	if err != nil {
		return inv, activities.Translate(err)
	}
	if inv.State, err = a.Inventory.ReadJob(ctx, in.JobID); err != nil {
		return inv, activities.Translate(err)
	}
	byID := make(map[uint64]stores.Entry, len(entries))
	var live []liveState
	for i, e := range entries {
		byID[e.Checkpoint] = e
		if e.Reference == nil {
			inv.Tombstones++
			continue
		}
		inv.Published++
		activity.RecordHeartbeat(ctx, "references", i)
		problem, h, err := activities.Resolve(ctx, a.States, a.Layout, e.Reference.Handle)
		if err != nil {
			return inv, err
		}
		if h != nil {
			live = append(live, liveState{checkpoint: e.Checkpoint, handle: *h})
		}
		if problem == "" {
			continue
		}
		// The listing is a snapshot: a reference subsumed and discarded
		// since is gone, not dangling. Only a key that still holds it counts.
		still, err := a.Inventory.Read(ctx, stores.CheckpointID{JobID: in.JobID, Checkpoint: e.Checkpoint})
		if err != nil {
			return inv, activities.Translate(err)
		}
		if !still.HoldsToken(e.Reference.Token) {
			continue
		}
		if len(inv.Dangling) == limit {
			inv.Truncated = true
			continue
		}
		inv.Dangling = append(inv.Dangling, DanglingReference{
			Checkpoint: e.Checkpoint, Token: e.Reference.Token, HandleKey: e.Reference.Handle,
			Savepoint: e.Reference.Savepoint, Problem: problem,
		})
	}
	if err := a.orphanCandidates(ctx, in, limit, byID, live, &inv); err != nil {
		return inv, err
	}
	var forgotten *stores.JobState
	inv.Collectable, forgotten = stores.DecideCollect(inv.State, entries, in.TombstoneCutoff)
	inv.Forget = forgotten != nil
	return inv, nil
}

// bucketError: invalid input is definite, everything else a retryable
// I/O failure that says nothing about the bucket's content.
func bucketError(err error) error {
	if errors.Is(err, stores.ErrInvalid) {
		return temporal.NewNonRetryableApplicationError(err.Error(), contract.RejectionType(err), err)
	}
	return fmt.Errorf("state bucket: %w", err)
}
