// Package pace is how the fault harness keeps time in a world it breaks:
// its own calls ride out the faults it injects (Retry), and its faults and
// pauses last a drawn while (Between) that a run's end cuts short (Sleep).
// The world (tools/faultharness/world) and the run (tools/faultharness)
// both pace themselves with it.
package pace

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// Retry calls fn until it succeeds, ctx ends or stop says the error is
// final: the harness's own calls ride out the faults it injects.
func Retry(ctx context.Context, what string, fn func(context.Context) error, stop func(error) bool) error {
	backoff := 100 * time.Millisecond
	for {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := fn(cctx)
		cancel()
		if err == nil || (stop != nil && stop(err)) {
			return err
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w (last error: %w)", what, ctx.Err(), err)
		}
		Sleep(ctx, backoff)
		backoff = min(2*backoff, 2*time.Second)
	}
}

// Sleep waits d unless ctx ends first.
func Sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// Between draws a duration in [lo, hi).
func Between(rng *rand.Rand, lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(rng.Int64N(int64(hi-lo)))
}
