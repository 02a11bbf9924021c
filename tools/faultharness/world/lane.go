package world

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Lane is one HA store with the worker processes that use it, polling a
// task queue of their own, and the client that starts workflows there.
type Lane struct {
	Name      string // StoreZooKeeper or StoreKubernetes
	Cluster   string // of every job on the lane
	TaskQueue string
	Client    *client.Client

	store   backend
	workers []*workerProc
}

// has reports whether the lane's store injects kind itself.
func (l *Lane) has(kind FaultKind) bool { return slices.Contains(storeKinds[l.Name], kind) }

// Checker is the lane's store as the harness reads and writes it, around
// every proxy that faults the workers' path.
func (l *Lane) Checker() stores.ReferenceStore { return l.store.checker() }

// KeyVersion identifies the exact write a checkpoint's key holds, so a
// replay that "changes nothing" can be proven to.
func (l *Lane) KeyVersion(ctx context.Context, id stores.CheckpointID) (string, error) {
	return l.store.keyVersion(ctx, id)
}

// ArmPublish arms a one-shot fault on the next write of the publish whose
// token is given: its reply dropped after it applied (reply), or its
// request dropped.
func (l *Lane) ArmPublish(token string, reply bool) ArmedWrite {
	return l.store.armPublish(token, reply)
}

// Workers are some of the world's worker processes, each a slot that a
// crash empties and a start fills with a fresh process.
type Workers []*workerProc

// Workers are every worker process of the lane.
func (l *Lane) Workers() Workers { return slices.Clone(l.workers) }

// RunningWorkflow is the lane's worker whose log names the workflow (by
// marker), or every worker of the lane when none does.
func (l *Lane) RunningWorkflow(marker string) Workers {
	for _, wp := range l.workers {
		if b, err := os.ReadFile(wp.logPath); err == nil && strings.Contains(string(b), marker) {
			return Workers{wp}
		}
	}
	return l.Workers()
}

// Kill kills every process with SIGKILL: a crash mid-activity.
func (ws Workers) Kill() error {
	var errs []error
	for _, wp := range ws {
		errs = append(errs, wp.kill())
	}
	return errors.Join(errs...)
}

// Start starts a fresh process in every slot, each waited for until it
// polls its task queue; it stops at the first that fails.
func (ws Workers) Start(ctx context.Context) error {
	for _, wp := range ws {
		if err := wp.start(ctx); err != nil {
			return err
		}
	}
	return nil
}
