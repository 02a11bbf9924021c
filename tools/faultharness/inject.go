package faultharness

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// inject applies one fault of the random phase and heals it. rng draws the
// fault's parameters (durations, which node or worker) and so stays
// reproducible from the seed; pick draws among what the run holds at that
// moment (jobs in flight, finished finalizations), which timing decides.
// The world applies its own kinds; a leadership change and a stale replay
// act on the run's jobs and finalizations.
func (r *run) inject(ctx context.Context, kind FaultKind, rng, pick *rand.Rand) FaultRecord {
	start := time.Now()
	var (
		hits   int
		detail string
		err    error
	)
	switch kind {
	case Leadership:
		hits, detail, err = r.leadershipChange(ctx, pick)
	case StaleReplay:
		hits, detail, err = r.staleReplay(ctx, pick)
	default:
		hits, detail, err = r.w.Inject(ctx, kind, rng)
	}
	rec := FaultRecord{Kind: kind, Hits: hits, Detail: detail, Took: time.Since(start)}
	if err != nil {
		rec.Error = err.Error()
		// Whatever it left broken, the next heal repairs; the run goes on.
		if herr := r.w.Heal(ctx); herr != nil {
			r.harnessError(fmt.Errorf("heal after %s: %w", kind, herr))
		}
	}
	return rec
}
