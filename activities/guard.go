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

// Every discard (a finalization's, a coordinator's removal, the
// reconciler's) goes through the guard: it reads the handle from the
// bucket, checks it against the worker's layout, fences the checkpoint's
// key against every attempt of the handle's finalization, and reads the key
// as it stands after that fence, right before the delete. With the layout,
// only references at that one key can point into the checkpoint's
// directory, so the key read after the fence is the whole answer: an
// earlier snapshot (an inventory, a retention plan) never is.

// guarded is a handle whose key has been fenced and read again.
type guarded struct {
	handle blobstate.Handle
	token  string
	// entry is the key as it stands after the fence.
	entry stores.Entry
}

// guard reads the handle and fences its key. A handle already gone is
// (nil, nil): there is nothing left to delete.
func (a *Activities) guard(ctx context.Context, handleKey string) (*guarded, error) {
	h, err := a.States.ReadKey(ctx, handleKey)
	switch {
	case errors.Is(err, blobstate.ErrNotFound):
		return nil, nil
	case errors.Is(err, stores.ErrInvalid), errors.Is(err, blobstate.ErrCorrupt):
		// A handle we cannot trust says nothing safe to delete: keep it.
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), contract.TypeCorruptHandle, err)
	case err != nil:
		return nil, fmt.Errorf("read handle %s: %w", handleKey, err)
	}
	if err := a.Layout.Check(h); err != nil {
		// Written before the layout was enforced, or by hand: its pointers
		// may name data it does not own.
		msg := fmt.Sprintf("handle %s lies outside the layout, state kept: %v", handleKey, err)
		return nil, temporal.NewNonRetryableApplicationError(msg, contract.TypeOutsideLayout, err)
	}
	g := &guarded{handle: h, token: contract.Token(h.CheckpointID, h.Epoch)}
	_, err = a.References.Verify(ctx, h.CheckpointID, g.token, FenceAll)
	count(ctx, "verify", stores.OutcomeOf(err))
	if err != nil {
		return nil, translate(err)
	}
	g.entry, err = a.References.Read(ctx, h.CheckpointID)
	count(ctx, "read", stores.OutcomeOf(err))
	if err != nil {
		return nil, translate(err)
	}
	return g, nil
}

// errNotFenced: the key read after the fence holds nothing; it was
// collected in between. The retry fences it again.
var errNotFenced = errors.New("the key holds nothing right after its fence")

// keepReason says why the key, read after the fence, keeps the checkpoint's
// directory: "" when no reference points into it and none can ever land
// there, which only a tombstone of the handle's own token (the caller has
// decided what a removed reference of its own means) or of no token shows.
// Another token's reference, standing or removed, may have its state in
// the same directory (a savepoint's, kept forever; a retained one's): when
// in doubt the state stays, and the reconciler reports it.
func (g *guarded) keepReason() (string, error) {
	e, t := g.entry, g.entry.Tombstone
	switch {
	case e.HoldsToken(g.token):
		return "its own reference stands", nil
	case e.Reference != nil:
		return fmt.Sprintf("checkpoint %d's key holds the live reference of token %q, which may point into the same directory", e.Checkpoint, e.Reference.Token), nil
	case t == nil:
		return "", fmt.Errorf("discard %s: %w", g.handle.CheckpointID, errNotFenced)
	case t.Token == g.token, t.Token == "":
		return "", nil
	case t.Reason == stores.ReasonFenced:
		return fmt.Sprintf("token %q may still publish checkpoint %d over its own fence", t.Token, e.Checkpoint), nil
	}
	return fmt.Sprintf("checkpoint %d's key holds the %s reference of token %q, whose state may share the directory", e.Checkpoint, t.Reason, t.Token), nil
}

// discard deletes the guarded state unless the key keeps it.
func (a *Activities) discard(ctx context.Context, g *guarded) (DiscardResult, error) {
	why, err := g.keepReason()
	if err != nil {
		return DiscardResult{}, err
	}
	if why != "" {
		return DiscardResult{Kept: why}, nil
	}
	res, err := a.States.Discard(ctx, g.handle)
	if err != nil {
		return DiscardResult{}, fmt.Errorf("discard %s: %w", g.handle.Key(), err)
	}
	countDiscard(ctx)
	return DiscardResult{DiscardResult: res}, nil
}
