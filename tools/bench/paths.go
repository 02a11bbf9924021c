package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// durable triggers through the finalizer's client and waits for the
// result: the latency a job manager sees before it may acknowledge.
func durable(c *client.Client) finalizeFunc {
	return func(ctx context.Context, req contract.FinalizeRequest) (time.Duration, error) {
		start := time.Now()
		f, err := c.Finalize(ctx, req)
		if err != nil {
			return 0, err
		}
		triggered := time.Since(start)
		res, err := f.Wait(ctx)
		if err != nil {
			return triggered, err
		}
		return triggered, published(res)
	}
}

// direct persists the handle and publishes the reference in-process, as
// Flink's job manager does: no Temporal, no verify, no subsumption.
func direct(states *blobstate.Store, refs stores.ReferenceStore) finalizeFunc {
	return func(ctx context.Context, req contract.FinalizeRequest) (time.Duration, error) {
		key, err := states.Write(ctx, activities.HandleOf(req))
		if err != nil {
			return 0, fmt.Errorf("persist handle: %w", err)
		}
		return 0, refs.Publish(ctx, stores.Publication{
			CheckpointID: req.CheckpointID(),
			Epoch:        req.Epoch,
			Owner:        req.Owner,
			Reference:    stores.Reference{Handle: key, Token: req.Token(), Attempt: 1, Savepoint: req.Savepoint},
		})
	}
}

// published is nil for a Published result, else an *unpublished.
func published(res contract.FinalizeResult) error {
	if res.Phase != contract.Published {
		return &unpublished{res}
	}
	return nil
}

// unpublished is a finalization that ended other than Published: the
// recorder counts the Discarded ones apart (they fell behind).
type unpublished struct{ contract.FinalizeResult }

func (u *unpublished) Error() string { return fmt.Sprintf("ended %s: %s", u.Phase, u.Reason) }
