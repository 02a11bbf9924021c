package reconcile

import (
	"context"
	"time"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// CollectInput names a job's tombstone collection.
type CollectInput struct {
	stores.JobID
	// OlderThan: only tombstones written before it go (and only those at
	// or below the job's watermark: the store decides), and never one
	// younger than the worker's TTL floor, whatever OlderThan says.
	OlderThan time.Time `json:"olderThan"`
}

// CollectTombstones deletes the job's tombstones below the watermark
// written before the cutoff, never a kept record (docs/design.md step 7),
// and returns how many went.
func (a *Activities) CollectTombstones(ctx context.Context, in CollectInput) (int, error) {
	defer activities.KeepAlive(ctx)()
	if err := a.wired(); err != nil {
		return 0, err
	}
	n, err := a.Inventory.CollectTombstones(ctx, in.JobID, a.cutoff(in.OlderThan, a.Floors.TombstoneTTL))
	activities.CountStoreCall(ctx, "collect", stores.OutcomeOf(err))
	if err != nil {
		return 0, activities.Translate(err)
	}
	return n, nil
}
