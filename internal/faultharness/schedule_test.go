package faultharness

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlanIsReproducibleAndCoversEveryKind(t *testing.T) {
	kinds := KindsFor(StoreZooKeeper)
	a := plan(rand.New(rand.NewPCG(42, 0)), kinds, 50)
	b := plan(rand.New(rand.NewPCG(42, 0)), kinds, 50)
	require.Equal(t, a, b, "the same seed draws the same schedule")
	assert.Len(t, a, 50)
	for _, k := range kinds {
		assert.Contains(t, a, k)
	}
	assert.NotEqual(t, a, plan(rand.New(rand.NewPCG(43, 0)), kinds, 50))
}

// The gate spreads the faults over the finalizations: fault i starts once
// i*K/F tickets are out, and ticket t waits for every fault due by then.
func TestGateInterleavesFaultsAndTickets(t *testing.T) {
	const k, f = 20, 6
	g := newGate(k, f)
	ctx := context.Background()
	started := func() int {
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.started
	}
	var wg sync.WaitGroup
	tickets := make(chan [2]int, k)
	for range 3 { // jobs
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n, ok := g.ticket(ctx)
				if !ok {
					return
				}
				tickets <- [2]int{n, started()}
			}
		}()
	}
	for i := range f {
		g.startFault(ctx, i)
		assert.GreaterOrEqual(t, g.triggered(), i*k/f, "fault %d started before its due ticket", i)
	}
	wg.Wait()
	close(tickets)
	var seen []int
	for tk := range tickets {
		seen = append(seen, tk[0])
		assert.GreaterOrEqual(t, tk[1], g.faultsDueBy(tk[0]), "ticket %d ran ahead of the faults", tk[0])
	}
	slices.Sort(seen)
	assert.Equal(t, k, len(seen))
	assert.Equal(t, 0, seen[0])
	assert.Equal(t, k-1, seen[k-1])
}
