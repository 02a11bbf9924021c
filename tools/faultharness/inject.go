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
func (r *run) inject(ctx context.Context, kind FaultKind, rng, pick *rand.Rand) FaultRecord {
	start := time.Now()
	var (
		hits   int
		detail string
		err    error
	)
	switch kind {
	case WorkerKill:
		hits, detail, err = r.killWorker(ctx, rng)
	case TemporalRestart:
		hits, detail, err = r.restartTemporal(ctx, rng)
	case Leadership:
		hits, detail, err = r.leadershipChange(ctx, pick)
	case WriteOutage:
		l := r.pickLane(rng, "")
		hits, detail, err = writeOutage(ctx, l.store, rng)
		detail = r.onLane(l, detail)
	case BlobWriteFailure, BlobWriteReplyLost, BlobDeleteFailure:
		hits, detail, err = r.blobFault(ctx, kind, rng)
	case StaleReplay:
		hits, detail, err = r.staleReplay(ctx, pick)
	default:
		l := r.pickLane(rng, kind)
		hits, detail, err = l.store.inject(ctx, kind, rng, r.cfg.SessionTimeout)
		detail = r.onLane(l, detail)
	}
	rec := FaultRecord{Kind: kind, Hits: hits, Detail: detail, Took: time.Since(start)}
	if err != nil {
		rec.Error = err.Error()
		// Whatever it left broken, the next heal repairs; the run goes on.
		if herr := r.w.heal(ctx); herr != nil {
			r.harnessError(fmt.Errorf("heal after %s: %w", kind, herr))
		}
	}
	return rec
}

// pickLane chooses the lane a fault hits: among those whose store injects
// kind ("": any), at random when there are several.
func (r *run) pickLane(rng *rand.Rand, kind FaultKind) *lane {
	var fit []*lane
	for _, l := range r.w.lanes {
		if kind == "" || l.has(kind) {
			fit = append(fit, l)
		}
	}
	if len(fit) == 1 {
		return fit[0]
	}
	return fit[rng.IntN(len(fit))]
}

// onLane names the lane in a fault's detail when the run has several.
func (r *run) onLane(l *lane, detail string) string {
	if len(r.w.lanes) == 1 {
		return detail
	}
	return l.name + ": " + detail
}

// killWorker kills one worker process with SIGKILL, mid-activity if it has
// one, and starts a fresh process in its slot after a pause.
func (r *run) killWorker(ctx context.Context, rng *rand.Rand) (int, string, error) {
	wp := r.w.workers[rng.IntN(len(r.w.workers))]
	down := between(rng, 500*time.Millisecond, 3*time.Second)
	wp.kill()
	sleep(ctx, down)
	if err := wp.start(ctx); err != nil {
		return 1, "", fmt.Errorf("restart worker %d: %w", wp.index, err)
	}
	return 1, fmt.Sprintf("worker %d down %s", wp.index, down.Round(time.Millisecond)), nil
}

// restartTemporal kills the dev server with SIGKILL (a crash, no shutdown)
// and starts it again on the same file database and ports.
func (r *run) restartTemporal(ctx context.Context, rng *rand.Rand) (int, string, error) {
	down := between(rng, 0, 2*time.Second)
	if err := r.w.temporal.Kill(); err != nil {
		return 0, "", fmt.Errorf("kill temporal: %w", err)
	}
	sleep(ctx, down)
	start := time.Now()
	if err := r.w.temporal.Restart(ctx); err != nil {
		return 1, "", err
	}
	return 1, fmt.Sprintf("down %s, restart took %s", down.Round(time.Millisecond), time.Since(start).Round(time.Millisecond)), nil
}
