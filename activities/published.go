package activities

import (
	"context"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// PublishedBefore reports whether the token was published: its checkpoint's
// key holds it, or holds the tombstone subsumption, retirement or
// quarantine left when they removed its reference. A fast-path finalization whose retried
// workflow task finds its data gone asks this before it fails: an earlier
// run of the task, lost with its worker, may have published, and the
// coordinator may have subsumed the checkpoint and discarded its state since.
func (a *Activities) PublishedBefore(ctx context.Context, in VerifyInput) (bool, error) {
	e, err := a.References.Read(ctx, in.CheckpointID)
	CountStoreCall(ctx, "read", stores.OutcomeOf(err))
	if err != nil {
		return false, Translate(err)
	}
	return e.WasPublished(in.Token), nil
}
