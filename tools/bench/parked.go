package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/checkpoint-finalizer/finalizer/worker"
)

// Parked is the parked scenario's outcome: the fast path's maximum
// throughput without and with Count finalizations parked in Verifying.
type Parked struct {
	Store worker.StoreKind `json:"store"`
	Count int              `json:"count"`
	// Confirmed is how many the visibility query found Verifying before
	// the measured run; StillParked after it.
	Confirmed   int `json:"confirmed"`
	StillParked int `json:"stillParked"`
	// ParkTime is from the first trigger to all of them found Verifying.
	ParkTime time.Duration `json:"parkTime"`
	// RSSParked is the worker process's VmRSS once they are parked, idle.
	RSSParked int64 `json:"rssParkedBytes"`
	// Settle is how long they were left parked before the measured run;
	// VerifyRate is how many verify calls per second the worker made
	// meanwhile, during the measured run (warm-up included): the parked
	// ones' retries, backing off from 1 s towards 5 min.
	Settle     time.Duration `json:"settle"`
	VerifyRate float64       `json:"verifyCallsPerSecond"`
	Without    Result        `json:"without"`
	With       Result        `json:"with"`
}

const parkedJob = "parked"

// parked measures the durable path's maximum throughput, parks
// cfg.Parked finalizations in Verifying (see park), measures again, and
// abandons them. Both cells repeat like the main ones: one sample of
// either can land on a bad moment of the machine and make the ratio.
func (sr *storeRun) parked(ctx context.Context) (*Parked, error) {
	load := Load{Mode: Max, Concurrency: sr.cfg.Concurrency, Duration: sr.cfg.Duration, Timeout: sr.cfg.Timeout}
	p := &Parked{Store: sr.kind, Count: sr.cfg.Parked}
	var err error
	if p.Without, err = sr.measureRepeated(ctx, Durable, load, "unparked"); err != nil {
		return nil, err
	}
	start := time.Now()
	fs, err := sr.park(ctx, sr.client, parkedJob, 1, sr.cfg.Parked)
	if err != nil {
		return nil, err
	}
	defer sr.abandon(ctx, fs)
	if p.Confirmed, err = sr.awaitVerifying(ctx, parkedJob, sr.cfg.Parked); err != nil {
		return nil, err
	}
	p.ParkTime = time.Since(start)
	if p.RSSParked, err = currentRSS(); err != nil {
		return nil, err
	}
	fmt.Fprintf(sr.cfg.Progress, "%s: %d finalizations parked in Verifying after %s, worker RSS %s; measuring in %s\n",
		sr.kind, p.Confirmed, p.ParkTime.Round(time.Millisecond), mib(p.RSSParked), sr.cfg.ParkedSettle)
	p.Settle = sr.cfg.ParkedSettle
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(p.Settle):
	}
	before, err := storeCalls(ctx, sr.ready.MetricsAddress, "verify")
	if err != nil {
		return nil, err
	}
	start = time.Now()
	if p.With, err = sr.measureRepeated(ctx, Durable, load, "with-parked"); err != nil {
		return nil, err
	}
	after, err := storeCalls(ctx, sr.ready.MetricsAddress, "verify")
	if err != nil {
		return nil, err
	}
	p.VerifyRate = (after - before) / time.Since(start).Seconds()
	if p.StillParked, err = sr.countVerifying(ctx, parkedJob); err != nil {
		return nil, err
	}
	return p, nil
}
