package world

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/internal/pace"
)

// writeOutage drops every write request to the store for a few seconds,
// re-arming after each one it drops. A one-shot drop is absorbed by the
// publish activity's own retries (same attempt); an outage outlasts them,
// so the finalizations in flight go to Verifying, are fenced Absent once
// the store answers again, and republish with their next attempt: the
// protocol's hardest path, under concurrency.
func writeOutage(ctx context.Context, b backend, rng *rand.Rand) (int, string, error) {
	hold := pace.Between(rng, 2*time.Second, 4*time.Second)
	deadline := time.Now().Add(hold)
	hits := 0
	a := b.armAnyWrite()
	for time.Until(deadline) > 0 && ctx.Err() == nil {
		if a.Wait(ctx, time.Until(deadline)) {
			hits += a.Disarm()
			a = b.armAnyWrite()
		}
	}
	hits += a.Disarm()
	return hits, fmt.Sprintf("%d write(s) dropped in %s", hits, hold.Round(time.Millisecond)), nil
}
