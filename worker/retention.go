package worker

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
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

// retentionSweepEvery is how often the worker hands every job of its
// clusters to the drain, besides once at start: the backstop for a job
// whose last publish's pass died with its worker and that publishes no
// more. A pass over a job with nothing to do reads its state and keys.
const retentionSweepEvery = 10 * time.Minute

// JobLister lists the jobs a sweep hands to the drain.
type JobLister func(ctx context.Context) ([]stores.JobID, error)

// HandleJobs lists the jobs of the clusters layout serves that have state
// handles in the bucket: every job with a reference retention may remove
// has its handle there.
func HandleJobs(states *blobstate.Store, layout blobstate.Layout) JobLister {
	return func(ctx context.Context) ([]stores.JobID, error) {
		clusters, all := layout.Clusters()
		if all {
			var err error
			if clusters, err = states.HandleClusters(ctx); err != nil {
				return nil, err
			}
		}
		var jobs []stores.JobID
		for _, c := range clusters {
			js, err := states.HandleJobs(ctx, c)
			if err != nil {
				return nil, err
			}
			jobs = append(jobs, js...)
		}
		return jobs, nil
	}
}

// sweep hands the drain every job list lists, now and every
// retentionSweepEvery, until ctx ends.
func (d *retentionDrain) sweep(ctx context.Context, list JobLister) {
	defer d.done.Done()
	t := time.NewTicker(retentionSweepEvery)
	defer t.Stop()
	for {
		jobs, err := list(ctx)
		if err != nil && ctx.Err() == nil {
			d.logger.Warn("retention sweep could not list the jobs; it tries again later", "error", err)
		}
		for _, job := range jobs {
			d.Enqueue(job)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// drainFunc is one retention pass over a job.
type drainFunc func(context.Context, stores.JobID) (activities.RemovalResult, error)

// retentionDrain queues jobs and passes each one at a time: a job handed
// again while its pass runs passes once more right after it (the pass may
// have read the store before the newest reference landed), and a job
// queued twice passes once.
type retentionDrain struct {
	pass   drainFunc
	logger *slog.Logger
	// retryFirst is the first backoff (retentionRetryFirst).
	retryFirst time.Duration

	mu      sync.Mutex
	closed  bool
	queue   []stores.JobID
	queued  map[stores.JobID]bool
	running map[stores.JobID]bool
	again   map[stores.JobID]bool
	retries map[stores.JobID]int
	timers  map[stores.JobID]*time.Timer
	wake    chan struct{}
	// ctx ends with stop; done counts the passers and the sweep.
	ctx  context.Context
	done sync.WaitGroup
}

// StartRetention runs the retention of acts in the background: it sets
// acts.Retention, so that every reference acts publish hands its job over,
// and starts the passers, which run acts.DrainRetention with ctx's values
// (activities.WithBackground); with sweep, it also hands them every job
// sweep lists, at once and every retentionSweepEvery. stop ends them,
// cancelling the passes that run (each store write is atomic; the job's
// next pass finishes the rest); call it once nothing publishes any more.
func StartRetention(ctx context.Context, acts *activities.Activities, sweep JobLister, logger *slog.Logger) (stop func()) {
	d, stop := startRetentionDrain(ctx, acts.DrainRetention, logger)
	acts.Retention = d
	if sweep != nil && acts.Retain > 0 {
		d.done.Add(1)
		go d.sweep(d.ctx, sweep)
	}
	return stop
}

// startRetentionDrain starts the passers of pass.
func startRetentionDrain(ctx context.Context, pass drainFunc, logger *slog.Logger) (d *retentionDrain, stop func()) {
	d = &retentionDrain{
		pass: pass, logger: logger, retryFirst: retentionRetryFirst,
		queued: map[stores.JobID]bool{}, running: map[stores.JobID]bool{}, again: map[stores.JobID]bool{},
		retries: map[stores.JobID]int{}, timers: map[stores.JobID]*time.Timer{},
		wake: make(chan struct{}, retentionPassers),
	}
	ctx, cancel := context.WithCancel(ctx)
	d.ctx = ctx
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
	delay := d.retryFirst << min(d.retries[job], 6)
	d.retries[job]++
	d.timers[job] = time.AfterFunc(min(delay, retentionRetryMax), func() {
		d.mu.Lock()
		delete(d.timers, job)
		d.mu.Unlock()
		d.Enqueue(job)
	})
}
