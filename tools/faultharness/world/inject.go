package world

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/internal/pace"
)

// Inject applies one fault of kind to the world and heals it before
// returning; hits counts what it hit (writes, requests, processes; 0 when
// nothing came by in time). rng draws the fault's parameters (durations,
// which lane, node or worker), so that a seeded schedule stays
// reproducible. Leadership and StaleReplay are the run's own: they act on
// its jobs, not on the world. A fault that fails may leave something
// broken: Heal repairs it.
func (w *World) Inject(ctx context.Context, kind FaultKind, rng *rand.Rand) (hits int, detail string, err error) {
	switch kind {
	case WorkerKill:
		return w.killWorker(ctx, rng)
	case TemporalRestart:
		return w.restartTemporal(ctx, rng)
	case WriteOutage:
		l := w.pickLane(rng, "")
		hits, detail, err = writeOutage(ctx, l.store, rng)
		return hits, w.onLane(l, detail), err
	case BlobWriteFailure, BlobWriteReplyLost, BlobDeleteFailure:
		return w.blob.fault(ctx, kind, rng)
	case Leadership, StaleReplay:
		return 0, "", fmt.Errorf("fault kind %s acts on the run's jobs, not on the world", kind)
	}
	l := w.pickLane(rng, kind)
	hits, detail, err = l.store.inject(ctx, kind, rng, w.cfg.SessionTimeout)
	return hits, w.onLane(l, detail), err
}

// pickLane chooses the lane a fault hits: among those whose store injects
// kind ("": any), at random when there are several.
func (w *World) pickLane(rng *rand.Rand, kind FaultKind) *Lane {
	var fit []*Lane
	for _, l := range w.lanes {
		if kind == "" || l.has(kind) {
			fit = append(fit, l)
		}
	}
	if len(fit) == 1 {
		return fit[0]
	}
	return fit[rng.IntN(len(fit))]
}

// onLane names the lane in a fault's detail when the world has several.
func (w *World) onLane(l *Lane, detail string) string {
	if len(w.lanes) == 1 {
		return detail
	}
	return l.Name + ": " + detail
}

// killWorker kills one worker process with SIGKILL, mid-activity if it has
// one, and starts a fresh process in its slot after a pause.
func (w *World) killWorker(ctx context.Context, rng *rand.Rand) (int, string, error) {
	wp := w.workers[rng.IntN(len(w.workers))]
	down := pace.Between(rng, 500*time.Millisecond, 3*time.Second)
	if err := wp.kill(); err != nil {
		return 0, "", err
	}
	pace.Sleep(ctx, down)
	if err := wp.start(ctx); err != nil {
		return 1, "", fmt.Errorf("restart worker %d: %w", wp.index, err)
	}
	return 1, fmt.Sprintf("worker %d down %s", wp.index, down.Round(time.Millisecond)), nil
}

// restartTemporal kills the dev server with SIGKILL (a crash, no shutdown)
// and starts it again on the same file database and ports.
func (w *World) restartTemporal(ctx context.Context, rng *rand.Rand) (int, string, error) {
	down := pace.Between(rng, 0, 2*time.Second)
	if err := w.temporal.Kill(); err != nil {
		return 0, "", fmt.Errorf("kill temporal: %w", err)
	}
	pace.Sleep(ctx, down)
	start := time.Now()
	if err := w.temporal.Restart(ctx); err != nil {
		return 1, "", err
	}
	return 1, fmt.Sprintf("down %s, restart took %s", down.Round(time.Millisecond), time.Since(start).Round(time.Millisecond)), nil
}
