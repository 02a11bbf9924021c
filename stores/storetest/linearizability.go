package storetest

import (
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// The size of a run: a few hundred calls, a few seconds per backend on two
// cores against a real server.
const (
	linClients        = 4
	linCallsPerClient = 120
	linCallTimeout    = 5 * time.Second
	// linCheckTimeout bounds porcupine's search, which is NP-hard: a
	// timeout fails the test, it never passes it.
	linCheckTimeout = time.Minute
)

// SeedVariable names the environment variable that fixes the workload's
// seed; the log of every run names the seed it used.
const SeedVariable = "STORETEST_SEED"

// RunLinearizabilityTests runs concurrent clients (separate store instances:
// sessions, connections) through a seeded random mix of every call of
// stores.ReferenceStore and stores.Inventory, reads included, on two jobs
// of modelKeys keys each, records the history and checks with porcupine
// that it is linearizable with respect to the decisions of stores/decide.go
// (step). With faults, every client but one runs on a connection the
// backend breaks now and then; a call whose outcome is then unknown is
// recorded as possibly applied: it may take effect at any point up to the
// end of the history, or not at all.
func RunLinearizabilityTests(t *testing.T, newHarness HarnessMaker, faults Faults) {
	seed := linearizabilitySeed(t)
	h := newHarness(t)
	rec := newRecorder()
	el := newElections()
	clients := make([]*linClient, linClients)
	for i := range clients {
		clients[i] = openClient(t, h, faults, i < linClients-1, i, seed, el)
	}
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() { c.run(rec, i) })
	}
	wg.Wait()
	observe(t, rec, openClient(t, h, nil, false, linClients, seed, el))
	rec.summarize(t)
	checkLinearizable(t, rec.operations(), seed)
}

func linearizabilitySeed(t *testing.T) uint64 {
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv(SeedVariable); v != "" {
		var err error
		seed, err = strconv.ParseUint(v, 10, 64)
		require.NoError(t, err, "%s", SeedVariable)
	}
	t.Logf("seed %d (%s=%d repeats the call mix; the interleaving is the machine's)", seed, SeedVariable, seed)
	return seed
}

// linClient is one client of the workload: its own store instance, its
// own workload, a breaker when its connection can be broken.
type linClient struct {
	store   stores.ReferenceStore
	inv     stores.Inventory
	breaker Breaker
	w       *workload
}

func openClient(t *testing.T, h Harness, faults Faults, faulty bool, id int, seed uint64, el *elections) *linClient {
	c := &linClient{}
	if faults != nil && faulty {
		c.store, c.breaker = faults.Open(t, h)
	} else {
		c.store = h.Open(t)
	}
	c.inv, _ = c.store.(stores.Inventory)
	c.w = newWorkload(id, seed, c.inv != nil, el)
	return c
}

// faultChance is how often a call runs with a fault armed: most often for
// the calls that read many keys before their compare-and-set, where a
// write held back opens the widest window for other clients' writes
// (issue 10, finding 4: a publish landing inside Retire's window), and
// seldom enough elsewhere that the other clients keep writing meanwhile
// instead of waiting on faults of their own.
func faultChance(k opKind) float64 {
	switch k {
	case opRetire:
		return 0.9
	case opCollect:
		return 0.3
	case opClaim, opPublish, opVerify, opSubsume, opQuarantine:
		return 0.04
	}
	return 0
}

func (c *linClient) run(rec *recorder, id int) {
	for range linCallsPerClient {
		next := c.w.pick()
		var fault string
		var heal func() bool
		if c.breaker != nil && c.w.rng.Float64() < faultChance(next.Kind) {
			fault, heal = c.breaker.Arm(c.w.rng)
		}
		a := rec.record(id, next, c)
		if heal != nil {
			rec.fault(fault, heal())
		}
		c.w.learn(next, a)
	}
}

// observe reads every job's final state through a client without faults,
// retrying until the store answers, so that a write that landed where the
// specification says it cannot is seen even if no call of the workload
// looked afterwards.
func observe(t *testing.T, rec *recorder, c *linClient) {
	deadline := time.Now().Add(time.Minute)
	for _, job := range linearizabilityJobs {
		calls := []call{{Kind: opReadJob, Job: job}}
		if c.inv != nil {
			calls = append(calls, call{Kind: opListEntries, Job: job})
		} else {
			for n := uint64(1); n <= modelKeys; n++ {
				calls = append(calls, call{Kind: opRead, Job: job, Key: n})
			}
		}
		for _, next := range calls {
			for a := rec.record(linClients, next, c); a.Unknown; a = rec.record(linClients, next, c) {
				require.True(t, time.Now().Before(deadline), "the store never answered %v: %s", next.Kind, a.Err)
				time.Sleep(100 * time.Millisecond)
			}
		}
	}
}
