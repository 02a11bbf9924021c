package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// Mode is how a load run offers finalizations.
type Mode string

const (
	// Rate offers a fixed rate, open loop: a send is due on every tick
	// whatever is still in flight, and its latency counts from the tick
	// (the scheduled send time), so a path that falls behind shows it.
	Rate Mode = "rate"
	// Max is closed loop: N triggerers each send the next finalization as
	// soon as their previous one is Published; latency counts from the send.
	Max Mode = "max"
)

// Load says how finalizations are offered during one run.
type Load struct {
	Mode        Mode    `json:"mode"`
	Rate        float64 `json:"rate,omitempty"`
	Concurrency int     `json:"concurrency,omitempty"`
	// Jobs the rate mode spreads its checkpoints over (round robin); the
	// max mode runs one job per triggerer.
	Jobs     int           `json:"jobs,omitempty"`
	Duration time.Duration `json:"duration"`
	// Timeout bounds one finalization; one that takes longer is an error.
	Timeout time.Duration `json:"timeout"`
}

// finalizeFunc finalizes req and returns once it is Published; any other
// end is an error. triggered is how long the trigger took to be accepted
// (the start of a workflow), 0 for a path without one.
type finalizeFunc func(ctx context.Context, req contract.FinalizeRequest) (triggered time.Duration, err error)

// run drives fin with checkpoints from src as l says.
func (l Load) run(ctx context.Context, src *checkpoints, fin finalizeFunc) (Sample, error) {
	var rec recorder
	var err error
	if l.Mode == Rate {
		err = l.openLoop(ctx, src, fin, &rec)
	} else {
		err = l.closedLoop(ctx, src, fin, &rec)
	}
	return rec.sample, err
}

// openLoop writes every checkpoint first (untimed), then sends one per
// tick, each on its own goroutine.
func (l Load) openLoop(ctx context.Context, src *checkpoints, fin finalizeFunc, rec *recorder) error {
	total := max(1, int(l.Rate*l.Duration.Seconds()+0.5))
	reqs := make([]contract.FinalizeRequest, total)
	for i := range reqs {
		var err error
		if reqs[i], err = src.next(i); err != nil {
			return err
		}
	}
	interval := time.Duration(float64(time.Second) / l.Rate)
	start := time.Now()
	var wg sync.WaitGroup
	for i, req := range reqs {
		due := start.Add(time.Duration(i) * interval)
		select {
		case <-ctx.Done():
			wg.Wait()
			return ctx.Err()
		case <-time.After(time.Until(due)):
		}
		wg.Go(func() { rec.record(l.once(ctx, fin, req, due)) })
	}
	wg.Wait()
	rec.sample.Elapsed = time.Since(start)
	return ctx.Err()
}

// closedLoop runs Concurrency triggerers until Duration has passed; each
// writes its next checkpoint (untimed, but within the run's wall time)
// and finalizes it.
func (l Load) closedLoop(ctx context.Context, src *checkpoints, fin finalizeFunc, rec *recorder) error {
	start := time.Now()
	deadline := start.Add(l.Duration)
	var wg sync.WaitGroup
	errs := make(chan error, l.Concurrency)
	for slot := range l.Concurrency {
		wg.Go(func() {
			for time.Now().Before(deadline) && ctx.Err() == nil {
				req, err := src.next(slot)
				if err != nil {
					errs <- err
					return
				}
				rec.record(l.once(ctx, fin, req, time.Now()))
			}
		})
	}
	wg.Wait()
	rec.sample.Elapsed = time.Since(start)
	close(errs)
	for err := range errs {
		return err
	}
	return ctx.Err()
}

// once finalizes one checkpoint; the latency counts from since.
func (l Load) once(ctx context.Context, fin finalizeFunc, req contract.FinalizeRequest, since time.Time) outcome {
	ctx, cancel := context.WithTimeout(ctx, l.Timeout)
	defer cancel()
	triggered, err := fin(ctx, req)
	if err != nil {
		err = fmt.Errorf("%s: %w", req.WorkflowID(), err)
	}
	return outcome{latency: time.Since(since), triggered: triggered, err: err}
}

type outcome struct {
	latency, triggered time.Duration
	err                error
}

// recorder collects outcomes from concurrent triggerers.
type recorder struct {
	mu     sync.Mutex
	sample Sample
}

func (r *recorder) record(o outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if o.err != nil {
		r.sample.Errors++
		if ended, ok := errors.AsType[*unpublished](o.err); ok && ended.Phase == contract.Discarded {
			r.sample.Discarded++
		}
		if r.sample.FirstError == "" {
			r.sample.FirstError = o.err.Error()
		}
		return
	}
	r.sample.Latencies = append(r.sample.Latencies, o.latency)
	if o.triggered > 0 {
		r.sample.Triggers = append(r.sample.Triggers, o.triggered)
	}
}
