package activities

import (
	"context"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// DiscardResult says what a discard removed.
type DiscardResult struct {
	blobstate.DiscardResult
	// AlreadyGone: the handle blob was not there, so neither is its data
	// (a discard deletes the data first and the handle last).
	AlreadyGone bool `json:"alreadyGone,omitempty"`
	// Published: the key, read after the fence, shows the token was
	// published (its reference, or the tombstone that removed it since):
	// a finalization reports Published and deletes nothing.
	Published bool `json:"published,omitempty"`
	// Kept says why nothing was deleted: another reference points, or may
	// yet point, into the checkpoint's directory.
	Kept string `json:"kept,omitempty"`
}

// Discard deletes a handle's state: its checkpoint's exclusive data, then
// the handle. Never shared files, never a savepoint's data, never anything
// the checkpoint's key (fenced, then read again right before the delete)
// says a reference owns. A finalization calls it for state it never
// published, a removal for state subsumption removed. When the key shows
// the token was published (Published), only a subsumed reference's state
// goes; a standing, retired, retained, quarantined or savepoint's one's
// stays for the retirement's, the reconciler's or the operator's rules.
// Idempotent: a handle already gone is success.
func (a *Activities) Discard(ctx context.Context, handleKey HandleKey) (DiscardResult, error) {
	defer KeepAlive(ctx)()
	guard := a.guard()
	g, err := guard.Fence(ctx, string(handleKey))
	switch {
	case err != nil:
		return DiscardResult{}, err
	case g == nil:
		return a.alreadyGone(ctx, handleKey)
	}
	published := g.Entry.WasPublished(g.Token)
	if published && (g.Entry.Tombstone == nil || g.Entry.Tombstone.Reason != stores.ReasonSubsumed) {
		return DiscardResult{Published: true}, nil
	}
	res, err := guard.Discard(ctx, g)
	res.Published = published
	return res, err
}

// alreadyGone answers a discard whose handle is gone: an earlier attempt
// deleted it, or the removal of its token's published reference did
// (another execution of the same request published it: a copy under
// another workflow ID). Either fenced the key before it deleted, so the
// key, read now, tells which: Published when it shows the token published.
func (a *Activities) alreadyGone(ctx context.Context, handleKey HandleKey) (DiscardResult, error) {
	id, epoch, err := blobstate.ParseKey(string(handleKey))
	if err != nil {
		return DiscardResult{}, Translate(err)
	}
	e, err := a.References.Read(ctx, id)
	CountStoreCall(ctx, "read", stores.OutcomeOf(err))
	if err != nil {
		return DiscardResult{}, Translate(err)
	}
	return DiscardResult{AlreadyGone: true, Published: e.WasPublished(contract.Token(id, epoch))}, nil
}

// guard is the delete guard over the finalizer's own store, bucket and
// layout.
func (a *Activities) guard() Guard {
	return Guard{References: a.References, States: a.States, Layout: a.Layout}
}

func countDiscard(ctx context.Context) {
	metricsOf(ctx).Counter(MetricDiscards).Inc(1)
}
