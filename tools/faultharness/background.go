package faultharness

import (
	"context"
	"sync"
)

// background starts what runs beside the random phase until the run has
// settled: the reconciler (real mode) and the continuous check. The
// returned function stops both and waits for them; calling it again does
// nothing.
func (r *run) background(ctx context.Context) func() {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	if r.cfg.ReconcileEvery > 0 {
		wg.Go(func() { r.reconcileLoop(ctx) })
	}
	if r.cfg.SampleEvery > 0 {
		wg.Go(func() { r.sampleLoop(ctx) })
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			wg.Wait()
		})
	}
}
