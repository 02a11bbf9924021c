package worker

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Retention runs in the worker's process, off every finalization's path:
// a publish hands its job to the drain (activities.RetentionQueue), whose
// passers run activities.DrainRetention on it. What a pass must finish is
// in the store (the subsumed tombstones), so a worker that dies with jobs
// queued loses nothing: the job's next pass, on any worker, finds it, and
// the reconciler's collection is the backstop for a job that never
// publishes again.
const (
	// retentionPassers is how many jobs pass at once.
	retentionPassers = 4
	// retentionRetryFirst and retentionRetryMax bound the backoff before a
	// job passes again after a pass that failed, or left a tombstone its
	// still running finalization may yet verify against.
	retentionRetryFirst = time.Second
	retentionRetryMax   = time.Minute
)

// drainFunc is one retention pass over a job.
type drainFunc func(context.Context, stores.JobID) (activities.RemovalResult, error)

// retentionDrain queues jobs and passes each one at a time: a job handed
// again while its pass runs passes once more right after it (the pass may
// have read the store before the newest reference landed), and a job
// queued twice passes once.
type retentionDrain struct {
	pass   drainFunc
	logger *slog.Logger

	mu      sync.Mutex
	closed  bool
	queue   []stores.JobID
	queued  map[stores.JobID]bool
	running map[stores.JobID]bool
	again   map[stores.JobID]bool
	retries map[stores.JobID]int
	timers  map[stores.JobID]*time.Timer
	wake    chan struct{}
	done    sync.WaitGroup
}

// StartRetention runs the retention of acts in the background: it sets
// acts.Retention, so that every reference acts publish hands its job over,
// and starts the passers, which run acts.DrainRetention with ctx's values
// (activities.WithBackground). stop ends them, cancelling the passes that
// run (each store write is atomic; the job's next pass finishes the rest);
// call it once nothing publishes any more.
func StartRetention(ctx context.Context, acts *activities.Activities, logger *slog.Logger) (stop func()) {
	d, stop := startRetentionDrain(ctx, acts.DrainRetention, logger)
	acts.Retention = d
	return stop
}

// startRetentionDrain starts the passers of pass.
func startRetentionDrain(ctx context.Context, pass drainFunc, logger *slog.Logger) (d *retentionDrain, stop func()) {
	d = &retentionDrain{
		pass: pass, logger: logger,
		queued: map[stores.JobID]bool{}, running: map[stores.JobID]bool{}, again: map[stores.JobID]bool{},
		retries: map[stores.JobID]int{}, timers: map[stores.JobID]*time.Timer{},
		wake: make(chan struct{}, retentionPassers),
	}
	ctx, cancel := context.WithCancel(ctx)
	for range retentionPassers {
		d.done.Add(1)
		go d.passer(ctx)
	}
	return d, func() {
		d.mu.Lock()
		d.closed = true
		for _, t := range d.timers {
			t.Stop()
		}
		d.mu.Unlock()
		cancel()
		d.done.Wait()
	}
}

// Enqueue hands a job to the drain; it never blocks.
func (d *retentionDrain) Enqueue(job stores.JobID) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.closed, d.queued[job]:
	case d.running[job]:
		d.again[job] = true
	default:
		d.queued[job] = true
		d.queue = append(d.queue, job)
		select {
		case d.wake <- struct{}{}:
		default:
		}
	}
}

func (d *retentionDrain) passer(ctx context.Context) {
	defer d.done.Done()
	for {
		job, ok := d.next()
		if !ok {
			select {
			case <-ctx.Done():
				return
			case <-d.wake:
				continue
			}
		}
		res, err := d.pass(ctx, job)
		d.passed(ctx, job, res, err)
	}
}

// next takes the first queued job that is not passing already.
func (d *retentionDrain) next() (stores.JobID, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.queue) == 0 {
		return stores.JobID{}, false
	}
	job := d.queue[0]
	d.queue = d.queue[1:]
	delete(d.queued, job)
	d.running[job] = true
	return job, true
}

// passed records a pass's end: passes the job again at once if a publish
// handed it meanwhile, after a backoff if the pass failed or left work
// for later.
func (d *retentionDrain) passed(ctx context.Context, job stores.JobID, res activities.RemovalResult, err error) {
	switch {
	case err != nil && ctx.Err() == nil:
		d.logger.Warn("retention pass failed; the job passes again", "job", job.String(), "error", err)
	case len(res.Kept) > 0:
		d.logger.Warn("retention removed references whose state it keeps", "job", job.String(), "kept", res.Kept)
	}
	d.mu.Lock()
	delete(d.running, job)
	again := d.again[job]
	delete(d.again, job)
	later := err != nil || len(res.Uncollected) > 0
	if !later {
		delete(d.retries, job)
	}
	d.mu.Unlock()
	switch {
	case again:
		d.Enqueue(job)
	case later:
		d.retryLater(job)
	}
}

// retryLater queues the job again after a backoff that doubles with each
// pass that leaves work, up to retentionRetryMax.
func (d *retentionDrain) retryLater(job stores.JobID) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || d.timers[job] != nil {
		return
	}
	delay := retentionRetryFirst << min(d.retries[job], 6)
	d.retries[job]++
	d.timers[job] = time.AfterFunc(min(delay, retentionRetryMax), func() {
		d.mu.Lock()
		delete(d.timers, job)
		d.mu.Unlock()
		d.Enqueue(job)
	})
}
