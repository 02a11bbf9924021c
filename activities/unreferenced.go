package activities

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// The discard of state no reference points at any more: the reconciler's
// orphans (activities/reconcile, DiscardOrphan) and a discarding
// retirement's checkpoints (DiscardRetired). Both go through the guard and
// decide by these rules, so that they cannot drift apart (docs/design.md,
// lifecycle rules, "Only the standing claim's own finalization deletes").

// Unreferenced says what DiscardUnreferenced did.
type Unreferenced struct {
	// Referenced: the key holds the token's reference after all; nothing
	// was deleted.
	Referenced bool
	// Kept says why the state stays; nothing was deleted.
	Kept      string
	Discarded DiscardResult
}

// Incarnation says, before any fence, whether the handle of (id, epoch) is
// a forgotten incarnation's (KeepPreviousIncarnation): its checkpoint
// directory is the new incarnation's too, and a fence written for it would
// land in the new one's key. The one exception is a key that still holds
// the token's own retirement tombstone (a resubmission claimed before the
// collection): nobody can publish that key again, so the retirement's
// choice holds, and the guard decides on that key. "" when the guard may
// go on.
func (g Guard) Incarnation(ctx context.Context, id stores.CheckpointID, epoch uint64) (string, error) {
	job, err := g.readJob(ctx, id.JobID)
	if err != nil || epoch > job.ForgottenEpoch {
		return "", err
	}
	e, err := g.read(ctx, id)
	if err != nil {
		return "", err
	}
	if Retirement(e, contract.Token(id, epoch)) == nil {
		return KeepPreviousIncarnation, nil
	}
	return "", nil
}

// DiscardUnreferenced fences the handle's key (Guard.Fence) and discards
// its exclusive data and the handle only when the key, read again after
// that fence, shows that no attempt of its finalization can ever publish
// and no other reference points, or can land, into the checkpoint's
// directory (I2); a checkpoint its job's retirement removed only when the
// retirement let it go, retired before retiredBefore (zero: whenever).
// Never a savepoint (Rejected.Savepoint, non-retryable), never shared
// files. The caller has checked Incarnation first.
func (g Guard) DiscardUnreferenced(ctx context.Context, handleKey string, retiredBefore time.Time) (Unreferenced, error) {
	gd, err := g.Fence(ctx, handleKey)
	switch {
	case err != nil:
		return Unreferenced{}, err
	case gd == nil:
		return Unreferenced{Discarded: DiscardResult{AlreadyGone: true}}, nil
	case gd.Handle.Savepoint:
		return Unreferenced{}, temporal.NewNonRetryableApplicationError(handleKey+" is a savepoint's: never discarded", contract.TypeSavepoint, nil)
	case gd.Entry.HoldsToken(gd.Token):
		return Unreferenced{Referenced: true}, nil
	}
	if why := RetirementKeeps(gd.Entry, gd.Token, retiredBefore); why != "" {
		return Unreferenced{Kept: why}, nil
	}
	res, err := g.Discard(ctx, gd)
	if err != nil || res.Kept != "" {
		return Unreferenced{Kept: res.Kept}, err
	}
	return Unreferenced{Discarded: res}, nil
}

// KeptBy says why a discard that failed definitely keeps the state (a
// savepoint's, a handle that cannot be trusted), "" for any other error.
func KeptBy(err error) string {
	var app *temporal.ApplicationError
	if !errors.As(err, &app) {
		return ""
	}
	switch app.Type() {
	case contract.TypeSavepoint, contract.TypeCorruptHandle, contract.TypeOutsideLayout:
		return app.Message()
	}
	return ""
}
