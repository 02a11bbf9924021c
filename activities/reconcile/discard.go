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
	job, err := a.Inventory.ReadJob(ctx, in.JobID)
	if err != nil {
		return OrphanResult{}, activities.Translate(err)
	}
	if in.Epoch <= job.ForgottenEpoch {
		// The new incarnation's directories, unless the key still holds
		// this token's own retirement tombstone (a resubmission claimed
		// before collection): nobody can publish that key again, so the
		// retirement's choice holds, and the guard decides on that key.
		e, err := a.References.Read(ctx, in.CheckpointID)
		if err != nil {
			return OrphanResult{}, activities.Translate(err)
		}
		if retirement(e, contract.Token(in.CheckpointID, in.Epoch)) == nil {
			return OrphanResult{Kept: KeepPreviousIncarnation}, nil
		}
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
	guard := a.guard()
	g, err := guard.Fence(ctx, in.HandleKey)
	switch {
	case err != nil:
		return OrphanResult{}, err
	case g == nil:
		return OrphanResult{Discarded: activities.DiscardResult{AlreadyGone: true}}, nil
	case g.Handle.Savepoint:
		return OrphanResult{}, temporal.NewNonRetryableApplicationError(in.HandleKey+" is a savepoint's: never discarded", contract.TypeSavepoint, nil)
	case g.Entry.HoldsToken(g.Token):
		return OrphanResult{Referenced: true}, nil
	}
	if why := retirementKeeps(g.Entry, g.Token, cutoff); why != "" {
		return OrphanResult{Kept: why}, nil
	}
	res, err := guard.Discard(ctx, g)
	if err != nil || res.Kept != "" {
		return OrphanResult{Kept: res.Kept}, err
	}
	return OrphanResult{Discarded: res}, nil
}

// retirementKeeps says why a checkpoint its job's retirement removed keeps
// its state: retained for the operator, or retired within the grace.
func retirementKeeps(e stores.Entry, token string, retiredBefore time.Time) string {
	switch t := retirement(e, token); {
	case t == nil:
		return ""
	case t.Reason == stores.ReasonRetained:
		return KeepRetained
	case !t.Since.Before(retiredBefore):
		return fmt.Sprintf(keepRetiring, t.Since.UTC().Format(time.RFC3339))
	}
	return ""
}

// retirement returns the tombstone the job's retirement left in place of
// token's reference, nil when the key holds none.
func retirement(e stores.Entry, token string) *stores.Tombstone {
	t := e.Tombstone
	if t != nil && t.Token == token && (t.Reason == stores.ReasonRetired || t.Reason == stores.ReasonRetained) {
		return t
	}
	return nil
}
