package activities

import (
	"context"
	"errors"
	"fmt"
	"math"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// FenceAll is the attempt the reconciler fences an orphan's key with: a
// tombstone up to it covers every attempt its finalization ever made or a
// zombie of it could replay.
const FenceAll = math.MaxUint32

// OrphanInput names orphaned state and the finalization it belonged to.
type OrphanInput struct {
	stores.CheckpointID
	Epoch uint64 `json:"epoch"`
	// Token is the finalization's token.
	Token     string `json:"token"`
	HandleKey string `json:"handleKey"`
}

// OrphanResult says what DiscardOrphan did.
type OrphanResult struct {
	// Referenced: the key holds the token's reference after all, or a
	// reference points at the handle; nothing was deleted.
	Referenced bool          `json:"referenced,omitempty"`
	Discarded  DiscardResult `json:"discarded"`
}

// DiscardOrphan fences the key first (Verify with the token and FenceAll)
// and discards the handle's exclusive data and the handle only after a
// fenced Absent: then no attempt of the finalization can ever publish a
// reference to what is deleted (I2). Never a savepoint, never shared files
// (blobstate.Discard deletes the exclusive prefix only). A failed fence is
// an error and deletes nothing.
func (a *Activities) DiscardOrphan(ctx context.Context, in OrphanInput) (OrphanResult, error) {
	if want := blobstate.Key(in.CheckpointID, in.Epoch); in.HandleKey != want {
		err := &stores.InvalidError{Field: "handleKey", Rule: fmt.Sprintf("%q is not the handle key of %s epoch %d (%s)", in.HandleKey, in.CheckpointID, in.Epoch, want)}
		return OrphanResult{}, translate(err)
	}
	verdict, err := a.References.Verify(ctx, in.CheckpointID, in.Token, FenceAll)
	count(ctx, "verify", stores.OutcomeOf(err))
	if err != nil {
		return OrphanResult{}, translate(err)
	}
	if verdict == stores.Present {
		return OrphanResult{Referenced: true}, nil
	}
	// Absent, fenced. A reference of another token must not point here
	// either (it cannot, unless the store was written by hand).
	e, err := a.Inventory.Read(ctx, in.CheckpointID)
	if err != nil {
		return OrphanResult{}, translate(err)
	}
	if e.Reference != nil && e.Reference.Handle == in.HandleKey {
		msg := fmt.Sprintf("%s is referenced by token %q", in.HandleKey, e.Reference.Token)
		return OrphanResult{}, temporal.NewNonRetryableApplicationError(msg, TypeStillReferenced, nil)
	}
	h, err := a.States.ReadKey(ctx, in.HandleKey)
	switch {
	case errors.Is(err, blobstate.ErrNotFound):
		return OrphanResult{Discarded: DiscardResult{AlreadyGone: true}}, nil
	case errors.Is(err, blobstate.ErrCorrupt), errors.Is(err, stores.ErrInvalid):
		return OrphanResult{}, temporal.NewNonRetryableApplicationError(err.Error(), TypeCorruptHandle, err)
	case err != nil:
		return OrphanResult{}, fmt.Errorf("discard orphan %s: %w", in.HandleKey, err)
	case h.Savepoint:
		return OrphanResult{}, temporal.NewNonRetryableApplicationError(in.HandleKey+" is a savepoint's: never discarded", TypeSavepoint, nil)
	}
	res, err := a.States.Discard(ctx, h)
	if err != nil {
		return OrphanResult{}, fmt.Errorf("discard orphan %s: %w", in.HandleKey, err)
	}
	activity.GetMetricsHandler(ctx).Counter(MetricDiscards).Inc(1)
	return OrphanResult{Discarded: DiscardResult{DiscardResult: res}}, nil
}
