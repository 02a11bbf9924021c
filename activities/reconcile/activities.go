package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// Inventory is the part of the HA store the reconciler lists, reads and
// repairs. Every backend implements it (stores.Inventory and
// stores.ReferenceStore).
type Inventory interface {
	stores.Inventory
	ListEntries(ctx context.Context, job stores.JobID) ([]stores.Entry, error)
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
	HandleModTime(ctx context.Context, key string) (time.Time, error)
}

// Floors are the shortest grace and tombstone TTL the worker applies,
// whatever a run's request or carried report asks: a cutoff is workflow
// input, and a destructive activity computes its own from the worker's
// clock, taking the input's only when it is earlier.
type Floors struct {
	// Grace: a handle younger than this, or retired more recently, is
	// never judged an orphan. It is also how long a handle's finalization
	// must have had to appear in Temporal before a NotFound is taken as an
	// expired history and the store alone decides.
	Grace time.Duration
	// TombstoneTTL: a tombstone younger than this is never collected. It
	// must outlive any activity attempt that still acts on it: the delete
	// guard's window between its fence and its delete, and a fast-path
	// task retried after its worker died, which asks whether its lost run
	// published. At least contract.MinTombstoneTTL.
	TombstoneTTL time.Duration
}

// DefaultFloors are safe for production: the TTL floor is six times the
// longest activity attempt (10 minutes) and rides out an hour's worker
// outage; the grace floor is longer than any activity attempt, so that
// no handle is judged while the attempt that wrote it may still run.
func DefaultFloors() Floors {
	return Floors{Grace: 15 * time.Minute, TombstoneTTL: time.Hour}
}

// Floors' fields as Validate names them.
const (
	FieldGraceFloor        = "grace floor"
	FieldTombstoneTTLFloor = "tombstone TTL floor"
)

// Validate refuses floors that protect nothing, every problem at once
// (errors.Join of *stores.InvalidError).
func (f Floors) Validate() error {
	var errs []error
	if f.Grace < 0 {
		errs = append(errs, &stores.InvalidError{Field: FieldGraceFloor, Rule: fmt.Sprintf("must not be negative, got %s", f.Grace)})
	}
	if f.TombstoneTTL < contract.MinTombstoneTTL {
		errs = append(errs, &stores.InvalidError{Field: FieldTombstoneTTLFloor, Rule: fmt.Sprintf("must be at least %s, got %s", contract.MinTombstoneTTL, f.TombstoneTTL)})
	}
	return errors.Join(errs...)
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
	Finalizations activities.Finalizations
	// Floors bound every cutoff the activities apply; required (the zero
	// value is refused as NotWired rather than read as "no floor").
	Floors Floors
	// Clock is the worker's clock the floors count back from; nil is
	// time.Now.
	Clock func() time.Time
}

// cutoff is the earlier of what the input asks and the worker's own now
// less floor: a run may ask for a longer grace or TTL, never a shorter.
func (a *Activities) cutoff(asked time.Time, floor time.Duration) time.Time {
	now := time.Now
	if a.Clock != nil {
		now = a.Clock
	}
	if limit := now().Add(-floor); !asked.Before(limit) {
		return limit
	}
	return asked
}

// guard is the finalizer's delete guard over the reconciler's store,
// bucket and layout: one implementation for every delete.
func (a *Activities) guard() activities.Guard {
	return activities.Guard{References: a.References, States: a.States, Layout: a.Layout}
}

// ErrNotWired: the worker registered the activities without all they need.
var ErrNotWired = errors.New("reconciler activities registered without Inventory, References, States, Handles, Finalizations or valid Floors")

// wired fails a run at its first activity, for good, rather than letting a
// nil field panic into retries or a missing floor let any cutoff through.
func (a *Activities) wired() error {
	if a.Inventory == nil || a.References == nil || a.States == nil || a.Handles == nil || a.Finalizations == nil {
		return temporal.NewNonRetryableApplicationError(ErrNotWired.Error(), "NotWired", ErrNotWired)
	}
	if err := a.Floors.Validate(); err != nil {
		err = fmt.Errorf("%w: %w", ErrNotWired, err)
		return temporal.NewNonRetryableApplicationError(err.Error(), "NotWired", err)
	}
	return nil
}
