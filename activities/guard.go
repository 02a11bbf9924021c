package activities

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

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
// earlier snapshot (an inventory, a retention plan) never is. It is here,
// exported, so that the reconciler (activities/reconcile) deletes through
// this one implementation (docs/design.md, "Every delete goes through one
// guard").

// FenceAll is the attempt the guard fences a key with: a tombstone up to it
// covers every attempt the handle's finalization ever made or a zombie of it
// could replay.
const FenceAll = math.MaxUint32

// GuardReferences is the part of the HA store the guard fences and reads.
type GuardReferences interface {
	Verify(ctx context.Context, id stores.CheckpointID, token string, attempt uint32) (stores.Verdict, error)
	Read(ctx context.Context, id stores.CheckpointID) (stores.Entry, error)
	ReadJob(ctx context.Context, job stores.JobID) (stores.JobState, error)
}

// GuardStates is the part of the blob state store the guard reads handles
// from, lists the other handles of a job in, and deletes through.
type GuardStates interface {
	ReadKey(ctx context.Context, key string) (blobstate.Handle, error)
	ListJobHandles(ctx context.Context, job stores.JobID) (blobstate.Listing, error)
	Mark(ctx context.Context, handleKey string) (blobstate.KeepMark, bool, error)
	Discard(ctx context.Context, h blobstate.Handle) (blobstate.DiscardResult, error)
}

// Guard is the delete guard over one store, bucket and layout.
type Guard struct {
	References GuardReferences
	States     GuardStates
	Layout     blobstate.Layout
}

// Guarded is a handle whose key has been fenced and read again.
type Guarded struct {
	Handle blobstate.Handle
	Token  string
	// Entry is the key as it stands after the fence.
	Entry stores.Entry
	// NotStanding says why the handle's epoch may not decide its
	// checkpoint's directory (stores.DecideFence); its key was read, not
	// fenced, and nothing of it is deleted. Empty when it may.
	NotStanding string
}

// Fence reads the handle and fences its key. A handle already gone is
// (nil, nil): there is nothing left to delete. A handle that cannot be
// trusted fails non-retryably (Rejected.CorruptHandle,
// Rejected.OutsideLayout) and keeps everything; a fence without an answer
// fails as the store's outcome says, having deleted nothing.
func (g Guard) Fence(ctx context.Context, handleKey string) (*Guarded, error) {
	h, err := g.States.ReadKey(ctx, handleKey)
	switch {
	case errors.Is(err, blobstate.ErrNotFound):
		return nil, nil
	case errors.Is(err, stores.ErrInvalid), errors.Is(err, blobstate.ErrCorrupt):
		// A handle we cannot trust says nothing safe to delete: keep it.
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), contract.TypeCorruptHandle, err)
	case err != nil:
		return nil, fmt.Errorf("read handle %s: %w", handleKey, err)
	}
	if err := g.Layout.Check(h); err != nil {
		// Written before the layout was enforced, or by hand: its pointers
		// may name data it does not own.
		msg := fmt.Sprintf("handle %s lies outside the layout, state kept: %v", handleKey, err)
		return nil, temporal.NewNonRetryableApplicationError(msg, contract.TypeOutsideLayout, err)
	}
	gd := &Guarded{Handle: h, Token: contract.Token(h.CheckpointID, h.Epoch)}
	// The job first, then the key: a claim the job shows was made before
	// the key is read (stores.DecideFence).
	job, err := g.readJob(ctx, h.JobID)
	if err != nil {
		return nil, err
	}
	if standing := stores.DecideFence(job, h.Epoch, h.Owner, h.Checkpoint); standing != nil {
		if gd.Entry, err = g.read(ctx, h.CheckpointID); err != nil {
			return nil, err
		}
		if !gd.Entry.WasPublished(gd.Token) {
			// Only a record of its own removed reference says the
			// directory was its own; an absent key says nothing, and
			// anything else is the standing claim's to decide.
			gd.NotStanding = standing.Error()
		}
		return gd, nil
	}
	_, err = g.References.Verify(ctx, h.CheckpointID, gd.Token, FenceAll)
	CountStoreCall(ctx, "verify", stores.OutcomeOf(err))
	if err != nil {
		return nil, Translate(err)
	}
	if gd.Entry, err = g.read(ctx, h.CheckpointID); err != nil {
		return nil, err
	}
	// A job forgotten and claimed again between the first read and the
	// fence makes the directory the new incarnation's: read the job again.
	if job, err = g.readJob(ctx, h.JobID); err != nil {
		return nil, err
	}
	if job.Standing(h.Epoch, h.Owner) == stores.EpochForgotten {
		gd.NotStanding = stores.DecideFence(job, h.Epoch, h.Owner, h.Checkpoint).Error()
	}
	return gd, nil
}

func (g Guard) read(ctx context.Context, id stores.CheckpointID) (stores.Entry, error) {
	e, err := g.References.Read(ctx, id)
	CountStoreCall(ctx, "read", stores.OutcomeOf(err))
	return e, Translate(err)
}

func (g Guard) readJob(ctx context.Context, job stores.JobID) (stores.JobState, error) {
	st, err := g.References.ReadJob(ctx, job)
	CountStoreCall(ctx, "read", stores.OutcomeOf(err))
	return st, Translate(err)
}

// errNotFenced: the key read after the fence holds nothing; it was
// collected in between. The retry fences it again.
var errNotFenced = errors.New("the key holds nothing right after its fence")

// keepReason says why the key, read after the fence, keeps the checkpoint's
// directory: "" when no reference points into it and none can ever land
// there, which only a tombstone of the handle's own token (the caller has
// decided what a removed reference of its own means) or of no token shows,
// unless it is a kept record (retained, a savepoint's), whoever's.
// Another token's reference, standing or removed, may have its state in
// the same directory (a savepoint's, kept forever; a retained one's): when
// in doubt the state stays, and the reconciler reports it.
func (g *Guarded) keepReason() (string, error) {
	e, t := g.Entry, g.Entry.Tombstone
	switch {
	case g.NotStanding != "":
		return fmt.Sprintf("%s; the state stays, and the reconciler reports it", g.NotStanding), nil
	case e.HoldsToken(g.Token):
		return "its own reference stands", nil
	case e.Reference != nil:
		return fmt.Sprintf("checkpoint %d's key holds the live reference of token %q, which may point into the same directory", e.Checkpoint, e.Reference.Token), nil
	case t == nil:
		return "", fmt.Errorf("discard %s: %w", g.Handle.CheckpointID, errNotFenced)
	case t.Kept():
		return fmt.Sprintf("checkpoint %d's key holds the %s record of token %q: its state stays until an operator releases it", e.Checkpoint, t.Reason, t.Token), nil
	case t.Token == g.Token, t.Token == "":
		return "", nil
	case t.Reason == stores.ReasonFenced:
		return fmt.Sprintf("token %q may still publish checkpoint %d over its own fence", t.Token, e.Checkpoint), nil
	}
	return fmt.Sprintf("checkpoint %d's key holds the %s reference of token %q, whose state may share the directory", e.Checkpoint, t.Reason, t.Token), nil
}

// Discard deletes the guarded state unless the key, read after the fence, keeps
// it: then Kept says why and nothing is deleted.
func (g Guard) Discard(ctx context.Context, gd *Guarded) (DiscardResult, error) {
	why, err := gd.keepReason()
	if err != nil {
		return DiscardResult{}, err
	}
	if why == "" {
		if why, err = g.marked(ctx, gd.Handle); err != nil {
			return DiscardResult{}, err
		}
	}
	if why == "" && !gd.Handle.Savepoint {
		if why, err = g.keptInside(ctx, gd.Handle); err != nil {
			return DiscardResult{}, err
		}
	}
	if why != "" {
		return DiscardResult{Kept: why}, nil
	}
	res, err := g.States.Discard(ctx, gd.Handle)
	if err != nil {
		return DiscardResult{}, fmt.Errorf("discard %s: %w", gd.Handle.Key(), err)
	}
	countDiscard(ctx)
	return DiscardResult{DiscardResult: res}, nil
}

// keptInside says why h's directory stays when another epoch's handle of
// the same checkpoint names its metadata inside it and declares a
// savepoint, or an operator keeps that handle's state (a keep mark): ""
// when none does. Within an incarnation a checkpoint ID is one job
// manager's, so such a pair is a request replayed under another claim,
// and the files are the savepoint's or the abandoned finalization's,
// which nothing deletes. A handle that cannot be read keeps the directory
// too: it may be one.
func (g Guard) keptInside(ctx context.Context, h blobstate.Handle) (string, error) {
	listing, err := g.States.ListJobHandles(ctx, h.JobID)
	if err != nil {
		return "", fmt.Errorf("discard %s: list the job's handles: %w", h.CheckpointID, err)
	}
	for _, other := range listing.Handles {
		if other.Checkpoint != h.Checkpoint || other.Epoch == h.Epoch {
			continue
		}
		o, err := g.States.ReadKey(ctx, other.Key)
		switch {
		case errors.Is(err, blobstate.ErrNotFound):
			continue
		case errors.Is(err, stores.ErrInvalid), errors.Is(err, blobstate.ErrCorrupt):
			return fmt.Sprintf("handle %s of the same checkpoint cannot be read (%v) and may declare a savepoint in %s", other.Key, err, h.ExclusivePrefix), nil
		case err != nil:
			return "", fmt.Errorf("discard %s: read handle %s: %w", h.CheckpointID, other.Key, err)
		}
		if !strings.HasPrefix(o.MetadataKey, h.ExclusivePrefix) {
			continue
		}
		if o.Savepoint {
			return fmt.Sprintf("handle %s declares the savepoint %s inside %s: a savepoint's files stay the operator's", other.Key, o.MetadataKey, h.ExclusivePrefix), nil
		}
		if why, err := g.marked(ctx, o); why != "" || err != nil {
			return why, err
		}
	}
	return "", nil
}

// marked says why h's state stays when an operator's keep mark stands
// beside its handle (an abandoned finalization's): "" when none does.
func (g Guard) marked(ctx context.Context, h blobstate.Handle) (string, error) {
	m, ok, err := g.States.Mark(ctx, h.Key())
	switch {
	case err != nil:
		return "", fmt.Errorf("discard %s: %w", h.CheckpointID, err)
	case !ok:
		return "", nil
	}
	return fmt.Sprintf("kept by an operator since %s (%s): the state stays until an operator releases it (finalizer-worker release %s)",
		m.Since.Format(time.RFC3339), m.Reason, h.Key()), nil
}
