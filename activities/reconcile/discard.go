package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// OrphanInput names orphaned state and the finalization it belonged to.
type OrphanInput struct {
	stores.CheckpointID
	Epoch     uint64 `json:"epoch"`
	HandleKey string `json:"handleKey"`
	// RetiredBefore is the run's grace cutoff: the handle must have been
	// written before it, and the state of a checkpoint its job's
	// retirement let go (ReasonRetired) retired before it, so that the
	// grace runs from the retirement, not from the handle's write. Never
	// later than the worker's clock less its grace floor, whatever it says.
	RetiredBefore time.Time `json:"retiredBefore"`
}

// OrphanResult says what DiscardOrphan did.
type OrphanResult struct {
	// Referenced: the key holds the token's reference after all; nothing
	// was deleted.
	Referenced bool `json:"referenced,omitempty"`
	// Kept says why the state stays (one of the Keep constants, or what
	// the key read after the fence says); nothing was deleted.
	Kept      string                   `json:"kept,omitempty"`
	Discarded activities.DiscardResult `json:"discarded"`
}

// DiscardOrphan fences the key first (Verify with the token and
// activities.FenceAll, through the finalizer's delete guard) and discards
// the handle's exclusive data and the handle only when the key, read again
// after that fence, shows that no attempt of the finalization can ever
// publish and no other reference points, or can land, into the
// checkpoint's directory (I2). A checkpoint its job's retirement removed
// goes only after the grace since the retirement, and never when the
// retirement retained it; state of a forgotten incarnation of a reused job
// ID is never touched (its checkpoint directories are the new one's too)
// unless its key still holds its own retirement's tombstone.
// Never a savepoint, never shared files, never a handle inside the grace.
// A failed fence deletes nothing.
func (a *Activities) DiscardOrphan(ctx context.Context, in OrphanInput) (OrphanResult, error) {
	defer activities.KeepAlive(ctx)()
	if err := a.wired(); err != nil {
		return OrphanResult{}, err
	}
	if want := blobstate.Key(in.CheckpointID, in.Epoch); in.HandleKey != want {
		err := &stores.InvalidError{Field: "handleKey", Rule: fmt.Sprintf("%q is not the handle key of %s epoch %d (%s)", in.HandleKey, in.CheckpointID, in.Epoch, want)}
		return OrphanResult{}, activities.Translate(err)
	}
	// Before any fence: a fence written for an old incarnation would land
	// in the new one's key.
	guard := a.guard()
	if keep, err := guard.Incarnation(ctx, in.CheckpointID, in.Epoch); err != nil || keep != "" {
		return OrphanResult{Kept: keep}, err
	}
	cutoff := a.cutoff(in.RetiredBefore, a.Floors.Grace)
	// Before any fence too: a handle inside the grace may be a
	// finalization's between its persist and its publish, which the fence
	// would cut off.
	written, err := a.Handles.HandleModTime(ctx, in.HandleKey)
	switch {
	case errors.Is(err, blobstate.ErrNotFound):
		return OrphanResult{Discarded: activities.DiscardResult{AlreadyGone: true}}, nil
	case err != nil:
		return OrphanResult{}, bucketError(err)
	case written.IsZero():
		return OrphanResult{Kept: KeepAgeUnknown}, nil
	case !written.Before(cutoff):
		return OrphanResult{Kept: fmt.Sprintf(keepYoung, written.Format(time.RFC3339))}, nil
	}
	res, err := guard.DiscardUnreferenced(ctx, in.HandleKey, cutoff)
	return OrphanResult{Referenced: res.Referenced, Kept: res.Kept, Discarded: res.Discarded}, err
}
