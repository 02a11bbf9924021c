package bench

import (
	"context"
	"fmt"
	"time"
)

// measure runs one path under load on fresh jobs named after prefix: it
// claims them, warms up, then measures the worker process's CPU and peak
// RSS over the measured run, and drains what the run left running.
func (sr *storeRun) measure(ctx context.Context, path Path, load Load, prefix string) (Result, error) {
	n := load.Jobs
	if load.Mode == Max {
		n = load.Concurrency
	}
	jobs := jobNames(prefix, n)
	if err := sr.claim(ctx, path, jobs); err != nil {
		return Result{}, err
	}
	src := newCheckpoints(sr.bucket, sr.cluster, sr.epoch, jobs)
	var (
		s   Sample
		u   Usage
		err error
	)
	if path == Remote {
		s, u, err = sr.remote(ctx, jobs, load)
	} else {
		s, u, err = sr.local(ctx, src, sr.finalizer(path), load, fmt.Sprintf("%s-%s", sr.kind, prefix))
	}
	var settle *Settle
	if err == nil && path == Durable && load.Mode == Max {
		// The burst is over: how long until retention has caught up.
		settle, err = sr.retentionSettle(ctx, jobs, time.Now())
	}
	if err == nil {
		err = sr.drain(ctx, path, prefix)
	}
	if err != nil {
		return Result{}, fmt.Errorf("%s %s %s: %w", sr.kind, path, load.Mode, err)
	}
	r := newResult(sr.kind, path, load, s, u)
	r.RetentionSettle = settle
	fmt.Fprintf(sr.cfg.Progress, "%s %-7s %-4s: %d published, %d errors, %.1f/s, p50 %s, p99 %s\n",
		sr.kind, path, load.Mode, r.Published, r.Errors, r.Throughput, ms(r.Latency.P50), ms(r.Latency.P99))
	return r, nil
}

// local drives an in-process path, its measured run profiled as name when
// the run keeps profiles.
func (sr *storeRun) local(ctx context.Context, src *checkpoints, fin finalizeFunc, load Load, name string) (Sample, Usage, error) {
	if sr.cfg.Warmup > 0 {
		warm := load
		warm.Duration = sr.cfg.Warmup
		if _, err := warm.run(ctx, src, fin); err != nil {
			return Sample{}, Usage{}, fmt.Errorf("warm-up: %w", err)
		}
	}
	m, err := startMeter(sr.srv.temporal.Processes(), sr.stepScrape(ctx))
	if err != nil {
		return Sample{}, Usage{}, err
	}
	stopProfile, err := sr.profile(ctx, name, load.Duration)
	if err != nil {
		return Sample{}, Usage{}, err
	}
	s, err := load.run(ctx, src, fin)
	if perr := stopProfile(); err == nil {
		err = perr
	}
	if err != nil {
		return Sample{}, Usage{}, err
	}
	u, err := m.stop()
	return s, u, err
}
