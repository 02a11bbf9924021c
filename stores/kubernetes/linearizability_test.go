package kubernetes_test

import (
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/kubernetes"
	"github.com/checkpoint-finalizer/finalizer/stores/storetest"
)

// Faulty clients go through the TCP proxy in front of the API server: a
// request swallowed, a reply swallowed after the API server applied the
// write, a request held briefly (a race window) or past the client's
// timeout and delivered afterwards (a zombie write). Between the API
// server and etcd, a transaction that carries a token is dropped, or
// applied and its reply dropped: a real 5xx for a write that did or did
// not land, and every other request in flight cut with it. Not parallel:
// both proxies are the shared server's.
func TestLinearizability(t *testing.T) {
	srv := kubetest.Shared(t)
	storetest.RunLinearizabilityTests(t, func(t *testing.T) storetest.Harness {
		return harness{srv: srv, ns: srv.Namespace(t, "lin")}
	}, &kubeFaults{srv: srv})
}

// kubeFaults arms one fault at a time on a shared proxy, where it hits
// whichever request comes next on any connection (in front) or the next
// transaction that carries the token (behind): a fault armed for one
// client's call may hit another's, and the history records either.
type kubeFaults struct {
	srv *kubetest.Server

	mu    sync.Mutex
	armed bool
}

// clientTimeout is short so that a long hold outlives the request.
const clientTimeout = time.Second

// quiet drops the store's warnings about the unknown outcomes the faults
// cause on purpose; the suite's summary counts them.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func (f *kubeFaults) Open(t *testing.T, h storetest.Harness) (stores.ReferenceStore, storetest.Breaker) {
	s := open(t, f.srv.FrontConfig(f.srv.AdminToken), h.(harness).ns,
		func(c *kubernetes.Config) { c.RequestTimeout, c.Logger = clientTimeout, quiet })
	return s, f
}

type kubeFault struct {
	name   string
	etcd   bool
	kind   kubetest.FaultKind
	hold   time.Duration
	weight int
}

var kubeFaultKinds = []kubeFault{
	{"drop request", false, kubetest.DropRequest, 0, 2},
	{"drop reply", false, kubetest.DropReply, 0, 2},
	{"hold request briefly", false, kubetest.HoldRequest, 20 * time.Millisecond, 4},
	{"hold request past timeout", false, kubetest.HoldRequest, clientTimeout + 300*time.Millisecond, 1},
	{"etcd: drop transaction", true, kubetest.DropRequest, 0, 1},
	{"etcd: drop reply", true, kubetest.DropReply, 0, 1},
}

func (f *kubeFaults) Arm(rng *rand.Rand) (string, func() bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.armed {
		return "none: another armed", func() bool { return false }
	}
	f.armed = true
	k := storetest.PickWeighted(rng, kubeFaultKinds, func(k kubeFault) int { return k.weight })
	// In front, skip 0 or 1: a write is the second request of a call,
	// after its read. Behind, a checkpoint's data key picks the next
	// transaction writing a ConfigMap that holds it (a read carries only
	// the ConfigMap's name).
	proxy, fault := f.srv.FrontProxy, kubetest.Fault{Kind: k.kind, Skip: rng.IntN(2)}
	if k.etcd {
		proxy, fault = f.srv.EtcdProxy, kubetest.Fault{Kind: k.kind, CutAfter: 300 * time.Millisecond,
			Match: fmt.Appendf(nil, "%s%019d", kubernetes.KeyPrefix, 1+rng.IntN(8))}
	}
	a := proxy.Arm(fault)
	healed := make(chan struct{})
	if k.hold > 0 {
		hold := k.hold + time.Duration(rng.Int64N(int64(k.hold/2)))
		storetest.ReleaseLater(a.Triggered(), healed, hold, func() { _ = a.Release() })
	}
	return k.name, func() bool {
		close(healed)
		a.Disarm()
		f.mu.Lock()
		f.armed = false
		f.mu.Unlock()
		return storetest.Closed(a.Triggered())
	}
}
