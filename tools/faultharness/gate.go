package faultharness

import (
	"context"
	"sync"
)

// gate spreads F faults evenly over K finalizations, whatever their speed:
// fault i is injected once i*K/F finalizations have been triggered, and a
// finalization waits until every fault due before it has started. Neither
// side runs ahead, so a fast workload cannot finish before the faults
// come, nor a slow one leave the faults to hit an idle system.
type gate struct {
	k, f int

	mu      sync.Mutex
	cond    *sync.Cond
	tickets int // finalizations triggered (or about to be)
	started int // faults started
	closed  bool
}

func newGate(k, f int) *gate {
	g := &gate{k: k, f: f}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// wake unblocks waiters when ctx ends.
func (g *gate) wake(ctx context.Context) func() {
	stop := context.AfterFunc(ctx, func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.cond.Broadcast()
	})
	return func() { stop() }
}

// faultsDueBy is how many faults must have started before ticket t:
// fault i is due at ticket i*k/f, so those with i < ceil((t+1)*f/k).
func (g *gate) faultsDueBy(t int) int {
	if g.f == 0 {
		return 0
	}
	return min(g.f, ((t+1)*g.f+g.k-1)/g.k)
}

// ticket takes the next finalization's place; false when all K are taken
// or ctx ended.
func (g *gate) ticket(ctx context.Context) (int, bool) {
	defer g.wake(ctx)()
	g.mu.Lock()
	defer g.mu.Unlock()
	for ctx.Err() == nil {
		if g.tickets >= g.k || g.closed {
			return 0, false
		}
		if g.started >= g.faultsDueBy(g.tickets) {
			t := g.tickets
			g.tickets++
			g.cond.Broadcast()
			return t, true
		}
		g.cond.Wait()
	}
	return 0, false
}

// startFault waits until fault i is due, then marks it started.
func (g *gate) startFault(ctx context.Context, i int) {
	defer g.wake(ctx)()
	g.mu.Lock()
	defer g.mu.Unlock()
	due := i * g.k / g.f
	for ctx.Err() == nil && g.tickets < due && g.tickets < g.k && !g.closed {
		g.cond.Wait()
	}
	g.started++
	g.cond.Broadcast()
}

// triggered is how many tickets have been taken.
func (g *gate) triggered() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.tickets
}

// close ends the tickets: nobody takes them any more, so no fault waits
// for them.
func (g *gate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	g.cond.Broadcast()
}
