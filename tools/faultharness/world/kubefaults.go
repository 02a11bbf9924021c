package world

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
	"github.com/checkpoint-finalizer/finalizer/stores/kubernetes"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/internal/pace"
)

// anyCheckpointWrite matches, in the API server's etcd traffic, a write of
// a ConfigMap that holds checkpoint keys: reads and watches carry only
// the object's key upstream, never its data.
var anyCheckpointWrite = []byte(kubernetes.KeyPrefix)

// Holds of the etcd proxy: the short one cuts the connection once the
// write applied (the API server answers 5xx); the long one outlasts the
// workers' request timeout (kubernetes.DefaultRequestTimeout), so their
// deadline expires on a write that landed.
const (
	appliedCut     = 300 * time.Millisecond
	appliedTimeout = kubernetes.DefaultRequestTimeout + 2*time.Second
)

// armedEtcd is one armed etcd proxy fault.
type armedEtcd struct{ a *kubetest.Armed }

func (a armedEtcd) Wait(ctx context.Context, timeout time.Duration) bool {
	select {
	case <-a.a.Triggered():
		return true
	case <-ctx.Done():
	case <-time.After(timeout):
	}
	return a.hit() == 1
}

func (a armedEtcd) Disarm() int {
	a.a.Disarm()
	return a.hit()
}

func (a armedEtcd) hit() int {
	select {
	case <-a.a.Triggered():
		return 1
	default:
		return 0
	}
}

// armPublish aims at the transaction carrying the publish's own token.
func (w *kubeWorld) armPublish(token string, reply bool) ArmedWrite {
	f := kubetest.Fault{Kind: kubetest.DropRequest, Match: []byte(token)}
	if reply {
		f = kubetest.Fault{Kind: kubetest.DropReply, Match: []byte(token), CutAfter: appliedCut}
	}
	return armedEtcd{w.srv.EtcdProxy.Arm(f)}
}

func (w *kubeWorld) armAnyWrite() ArmedWrite {
	return armedEtcd{w.srv.EtcdProxy.Arm(kubetest.Fault{Kind: kubetest.DropRequest, Match: anyCheckpointWrite})}
}

func (w *kubeWorld) inject(ctx context.Context, kind FaultKind, rng *rand.Rand, _ time.Duration) (int, string, error) {
	var f kubetest.Fault
	switch kind {
	case Reset, Latency:
		return injectBytes(ctx, []*netProxy{w.front}, kind, rng)
	case EtcdReset:
		w.srv.EtcdProxy.CutAll()
		return 1, "API server's etcd connections cut", nil
	case EtcdAppliedError:
		f = kubetest.Fault{Kind: kubetest.DropReply, Match: anyCheckpointWrite, CutAfter: appliedCut}
	case EtcdAppliedTimeout:
		f = kubetest.Fault{Kind: kubetest.DropReply, Match: anyCheckpointWrite, CutAfter: appliedTimeout}
	case EtcdLost:
		f = kubetest.Fault{Kind: kubetest.DropRequest, Match: anyCheckpointWrite}
	default:
		return 0, "", fmt.Errorf("fault kind %s is not a Kubernetes fault", kind)
	}
	a := armedEtcd{w.srv.EtcdProxy.Arm(f)}
	a.Wait(ctx, 10*time.Second)
	n := a.Disarm()
	if n > 0 && f.CutAfter > 0 {
		pace.Sleep(ctx, f.CutAfter) // the fault lasts until the cut
	}
	return n, fmt.Sprintf("%d ConfigMap write(s) hit", n), nil
}
