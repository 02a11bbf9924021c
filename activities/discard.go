package activities

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// DiscardResult says what a discard removed.
type DiscardResult struct {
	blobstate.DiscardResult
	// AlreadyGone: the handle blob was not there, so neither is its data
	// (a discard deletes the data first and the handle last).
	AlreadyGone bool `json:"alreadyGone,omitempty"`
}

// Discard deletes the state a handle blob describes: its checkpoint's
// exclusive data, then the handle. Never shared files, never a savepoint's
// data. Idempotent: a handle already gone is success.
func (a *Activities) Discard(ctx context.Context, handleKey string) (DiscardResult, error) {
	h, err := a.States.ReadKey(ctx, handleKey)
	switch {
	case errors.Is(err, blobstate.ErrNotFound):
		return DiscardResult{AlreadyGone: true}, nil
	case errors.Is(err, stores.ErrInvalid), errors.Is(err, blobstate.ErrCorrupt):
		// A handle we cannot trust says nothing safe to delete: keep it.
		return DiscardResult{}, temporal.NewNonRetryableApplicationError(err.Error(), TypeCorruptHandle, err)
	case err != nil:
		return DiscardResult{}, fmt.Errorf("discard %s: %w", handleKey, err)
	}
	res, err := a.States.Discard(ctx, h)
	if err != nil {
		return DiscardResult{}, fmt.Errorf("discard %s: %w", handleKey, err)
	}
	activity.GetMetricsHandler(ctx).Counter(MetricDiscards).Inc(1)
	return DiscardResult{DiscardResult: res}, nil
}
