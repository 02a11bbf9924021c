package activities

import (
	"context"
	"errors"
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// HandleReader is the part of the blob state store Resolve reads.
type HandleReader interface {
	ReadKey(ctx context.Context, key string) (blobstate.Handle, error)
	CheckData(ctx context.Context, h blobstate.Handle) error
}

// Resolve follows a reference to its handle and the handle to its
// metadata. It returns the problem (one of contract's Problem constants,
// "" when everything resolves), the handle when one could be read, or an
// I/O error that says nothing. A handle the layout refuses is foreign and
// its metadata is never read: nothing outside the served clusters'
// directories is read on a reference's word. A claim's restore point and
// the reconciler's dangling references (activities/reconcile) judge a
// reference by it, so that both call the same reference dangling.
func Resolve(ctx context.Context, states HandleReader, layout blobstate.Layout, key string) (string, *blobstate.Handle, error) {
	h, err := states.ReadKey(ctx, key)
	switch {
	case errors.Is(err, blobstate.ErrNotFound):
		return contract.ProblemHandleMissing, nil, nil
	case errors.Is(err, blobstate.ErrCorrupt):
		return contract.ProblemHandleCorrupt, nil, nil
	case errors.Is(err, stores.ErrInvalid):
		return contract.ProblemHandleKeyInvalid, nil, nil
	case err != nil:
		return "", nil, fmt.Errorf("read handle %s: %w", key, err)
	}
	if layout.Check(h) != nil {
		return contract.ProblemHandleForeign, &h, nil
	}
	err = states.CheckData(ctx, h)
	switch {
	case errors.Is(err, blobstate.ErrDataMissing):
		return contract.ProblemDataMissing, &h, nil
	case errors.Is(err, blobstate.ErrDataCorrupt):
		return contract.ProblemDataCorrupt, &h, nil
	case err != nil:
		return "", &h, fmt.Errorf("check data of %s: %w", key, err)
	}
	return "", &h, nil
}
