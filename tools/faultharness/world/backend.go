package world

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Store backends a run can use.
const (
	StoreZooKeeper  = "zookeeper"
	StoreKubernetes = "kubernetes"
	// StoreBoth splits the jobs between a ZooKeeper and a Kubernetes
	// store, each with its own worker pool, so one run injects every kind.
	StoreBoth = "both"
)

// backend is the HA store side of a run: the real servers, the fault
// proxies in front of them, and the harness's own unfaulted view.
type backend interface {
	// workerArgs are the store flags of the worker processes.
	workerArgs() []string
	// checker is the store as the harness reads it, around every proxy
	// that faults the workers' path.
	checker() stores.ReferenceStore
	// keyVersion identifies the exact write a checkpoint's key holds, so a
	// replay that "changes nothing" can be proven to.
	keyVersion(ctx context.Context, id stores.CheckpointID) (string, error)
	// inject applies one of the backend's fault kinds (storeKinds) and heals it before returning; hits
	// counts what it hit.
	inject(ctx context.Context, kind FaultKind, rng *rand.Rand, session time.Duration) (hits int, detail string, err error)
	// armPublish arms a one-shot fault on the next write of req's publish:
	// its reply dropped after it applied, or its request dropped.
	armPublish(token string, reply bool) ArmedWrite
	// evidence counts server-side traces of the faults, by what they show.
	evidence() map[string]int
	// armAnyWrite arms a one-shot drop of the next write's request,
	// whichever write it is.
	armAnyWrite() ArmedWrite
	// heal ends every fault of the backend.
	heal(ctx context.Context) error
	close(keep bool)
}

// ArmedWrite is a one-shot write fault waiting for its write.
type ArmedWrite interface {
	// Wait waits until the fault hit a write, or timeout.
	Wait(ctx context.Context, timeout time.Duration) bool
	// Disarm removes the fault if it has not hit and says how many writes it hit.
	Disarm() int
}
