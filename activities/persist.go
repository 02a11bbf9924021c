package activities

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// PersistResult says where the handle went.
type PersistResult struct {
	HandleKey string `json:"handleKey"`
	StoreKind string `json:"storeKind"`
}

// PersistHandle checks the handle against the worker's layout (before
// anything is read or written: a request names only its own checkpoint's
// data, of a cluster this worker serves), that the checkpoint's metadata
// exists with its checksum, then writes the handle blob under its
// deterministic key. A retry rewrites the same blob.
func (a *Activities) PersistHandle(ctx context.Context, h blobstate.Handle) (PersistResult, error) {
	if err := a.Layout.Check(h); err != nil {
		return PersistResult{}, temporal.NewNonRetryableApplicationError(err.Error(), contract.RejectionType(err), err)
	}
	if err := a.States.CheckData(ctx, h); err != nil {
		switch {
		case errors.Is(err, stores.ErrInvalid):
			return PersistResult{}, temporal.NewNonRetryableApplicationError(err.Error(), contract.RejectionType(err), err)
		case errors.Is(err, blobstate.ErrDataMissing), errors.Is(err, blobstate.ErrDataCorrupt):
			return PersistResult{}, temporal.NewNonRetryableApplicationError(err.Error(), contract.TypeDataMissing, err)
		}
		return PersistResult{}, fmt.Errorf("persist handle of checkpoint %s: %w", h.CheckpointID, err)
	}
	key, err := a.States.Write(ctx, h)
	if errors.Is(err, stores.ErrInvalid) || errors.Is(err, stores.ErrHandleConflict) {
		return PersistResult{}, temporal.NewNonRetryableApplicationError(err.Error(), contract.RejectionType(err), err)
	}
	if err != nil {
		return PersistResult{}, fmt.Errorf("persist handle of checkpoint %s: %w", h.CheckpointID, err)
	}
	return PersistResult{HandleKey: key, StoreKind: a.StoreKind}, nil
}
