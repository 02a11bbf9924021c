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

// The lifecycle plan spreads R retirements and A adversarial requests over
// the K tickets, every adversarial kind at least once, reproducibly;
// retirements neither first nor last.
func TestLifePlanSpreadsEveryStep(t *testing.T) {
	const k, retirements, adversarial = 100, 4, 9
	a := lifePlan(rand.New(rand.NewPCG(3, 0)), k, retirements, adversarial)
	require.Equal(t, a, lifePlan(rand.New(rand.NewPCG(3, 0)), k, retirements, adversarial))
	var retires int
	kinds := map[AdversarialKind]int{}
	for ticket, actions := range a {
		assert.True(t, ticket >= 0 && ticket < k, "ticket %d", ticket)
		for _, act := range actions {
			if act.retire {
				retires++
				assert.True(t, ticket > 0 && ticket < k-1, "retirement at ticket %d", ticket)
				continue
			}
			kinds[act.adversarial]++
		}
	}
	assert.Equal(t, retirements, retires)
	total := 0
	for _, kind := range AdversarialKinds {
		assert.Positive(t, kinds[kind], "kind %s planned", kind)
		total += kinds[kind]
	}
	assert.Equal(t, adversarial, total)
	assert.Empty(t, lifePlan(rand.New(rand.NewPCG(3, 0)), k, -1, -1), "negative: none")
}
