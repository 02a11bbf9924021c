package zookeeper_test

import (
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/zkfault"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/zktest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/storetest"
	"github.com/checkpoint-finalizer/finalizer/stores/zookeeper"
)

// The suite again on a 3-node ensemble: each client's session is pinned to
// one member, in turn, so the leader and both followers serve sessions,
// and the first follower lags behind: it is paused and resumed over and
// over while the clients run, and each time it is resumed it answers its
// sessions while it catches up with what the others committed meanwhile.
// Every faulty client also runs through a fault proxy of its own, as on one
// server. A decision made on a lagging member's nodes without a sync
// (issue 22) is a history porcupine may not linearize; the deterministic
// regression test for it is TestDecisionsOnALaggingFollowerAreLinearizable.
func TestLinearizabilityEnsemble(t *testing.T) {
	e, leader, lagging := ensemble(t)
	// The lagging follower, the leader, the other follower: the three
	// faulty clients one on each member, the client without faults beside
	// the first.
	h := &ensembleHarness{root: uniqueRoot(), members: []*zktest.Node{lagging, leader}}
	for _, n := range e.Nodes {
		if !slices.Contains(h.members, n) {
			h.members = append(h.members, n)
		}
	}
	stop := lag(t, lagging)
	storetest.RunLinearizabilityTests(t, func(*testing.T) storetest.Harness { return h }, ensembleFaults{})
	t.Logf("the lagging follower was paused %d times", stop())
}

// lag pauses node for 0.3-1.5 s, runs it for 50-300 ms, and again, until
// the returned stop is called; stop leaves it running and says how many
// pauses there were. A pause stays below the ensemble's sync limit (2.5 s)
// and the sessions' read timeout (2/3 of 4 s), so that neither the leader
// nor a client gives up on the node: it only lags, and the longer the
// pause, the more the others commit meanwhile and the longer it lags once
// resumed. Without the sync of issue 22 this suite failed 1 run of 9 (0
// of 3 with pauses of 50-500 ms): a call the pause blocks was mostly sent
// before the writes it then misses, which a sequential order allows, so
// the deterministic test of that bug is the lagging follower test.
func lag(t *testing.T, node *zktest.Node) (stop func() int) {
	done := make(chan struct{})
	stopped := make(chan int)
	go func() {
		rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
		pauses := 0
		defer func() { stopped <- pauses }()
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Duration(50+rng.IntN(250)) * time.Millisecond):
			}
			if err := node.Pause(); err != nil {
				t.Errorf("pause member %d: %v", node.ID, err)
				return
			}
			pauses++
			time.Sleep(time.Duration(300+rng.IntN(1200)) * time.Millisecond)
			if err := node.Resume(); err != nil {
				t.Errorf("resume member %d: %v", node.ID, err)
				return
			}
		}
	}()
	var once atomic.Bool
	stop = func() int {
		if once.Swap(true) {
			return 0
		}
		close(done)
		return <-stopped
	}
	t.Cleanup(func() { stop() })
	return stop
}

// ensembleHarness hands out sessions on the ensemble's members in turn.
type ensembleHarness struct {
	members []*zktest.Node
	root    string
	next    atomic.Int64
}

// member is the next member in turn; it logs which it is.
func (h *ensembleHarness) member(t *testing.T) *zktest.Node {
	n := h.members[int(h.next.Add(1)-1)%len(h.members)]
	mode, _ := n.Mode()
	t.Logf("session on member %d (%s)", n.ID, mode)
	return n
}

// Open pins a session to the next member: listed twice, the client
// reconnects to it at once after a cut instead of pausing a second.
func (h *ensembleHarness) Open(t *testing.T) stores.ReferenceStore {
	return open(t, pinned(h.member(t).Addr, h.root))
}

func pinned(addr, root string) zookeeper.Config {
	cfg := config(addr, root)
	cfg.Servers = []string{addr, addr}
	return cfg
}

type ensembleFaults struct{}

func (ensembleFaults) Open(t *testing.T, h storetest.Harness) (stores.ReferenceStore, storetest.Breaker) {
	eh := h.(*ensembleHarness)
	proxy, err := zkfault.Start(eh.member(t).Addr)
	require.NoError(t, err)
	t.Cleanup(proxy.Close)
	return open(t, pinned(proxy.Addr, eh.root)), zkBreaker{proxy}
}
