package reconcile

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// Inventory is the part of the HA store the reconciler lists, reads and
// repairs. Every backend implements it (stores.Inventory and
// stores.ReferenceStore).
type Inventory interface {
	stores.Inventory
	Read(ctx context.Context, id stores.CheckpointID) (stores.Entry, error)
	ReadJob(ctx context.Context, job stores.JobID) (stores.JobState, error)
	CollectTombstones(ctx context.Context, job stores.JobID, olderThan time.Time) (int, error)
}

// States is the part of the blob state store the reconciler reads handles
// and data from and discards through.
type States interface {
	activities.HandleReader
	activities.GuardStates
}

// Handles lists the handle blobs of the state bucket.
type Handles interface {
	HandleJobs(ctx context.Context, cluster string) ([]stores.JobID, error)
	ListJobHandles(ctx context.Context, job stores.JobID) (blobstate.Listing, error)
}

// Activities is registered with the worker beside the finalizer's
// activities.Activities; its methods are the reconciler's activities.
type Activities struct {
	// Inventory is the HA store the reconciler lists, reads and repairs:
	// the store the worker opened.
	Inventory Inventory
	// References is what the delete guard fences an orphan's key through
	// and reads it back from: the finalizer's References, so that a fault a
	// worker injects into the finalizer's store reaches these fences too.
	References activities.GuardReferences
	// States is the state bucket; Handles lists its handle blobs.
	States  States
	Handles Handles
	// Layout is where each served cluster keeps its checkpoints: a run for
	// another cluster is refused, and a handle outside it is never deleted.
	Layout blobstate.Layout
	// Finalizations answers, by workflow ID, whether an orphan's
	// finalization is closed.
	Finalizations Finalizations
}

// guard is the finalizer's delete guard over the reconciler's store,
// bucket and layout: one implementation for every delete.
func (a *Activities) guard() activities.Guard {
	return activities.Guard{References: a.References, States: a.States, Layout: a.Layout}
}

// ErrNotWired: the worker registered the activities without all they need.
var ErrNotWired = errors.New("reconciler activities registered without Inventory, References, States, Handles or Finalizations")

// wired fails a run at its first activity, for good, rather than letting a
// nil field panic into retries.
func (a *Activities) wired() error {
	if a.Inventory == nil || a.References == nil || a.States == nil || a.Handles == nil || a.Finalizations == nil {
		return temporal.NewNonRetryableApplicationError(ErrNotWired.Error(), "NotWired", ErrNotWired)
	}
	return nil
}
