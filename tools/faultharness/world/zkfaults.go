package world

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/zkfault"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/zktest"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/internal/pace"
)

// armedWrites is a one-shot write fault armed on every node's proxy: the
// next multi-op through any of them takes it, wherever the client is
// connected.
type armedWrites struct {
	w     *zkWorld
	fired []<-chan struct{}
}

// armPublish arms the next multi-op on any node: with nothing else at
// work, that is the publish (ZooKeeper's frames carry no token to match).
func (w *zkWorld) armPublish(_ string, reply bool) ArmedWrite {
	if reply {
		return w.armWrites(zkfault.DropWriteReply)
	}
	return w.armWrites(zkfault.DropWriteRequest)
}

func (w *zkWorld) armAnyWrite() ArmedWrite { return w.armWrites(zkfault.DropWriteRequest) }

func (w *zkWorld) armWrites(f zkfault.Fault) *armedWrites {
	a := &armedWrites{w: w}
	for _, p := range w.frames {
		a.fired = append(a.fired, p.Inject(f))
	}
	return a
}

// Wait waits until the fault has hit a write on some node, or timeout.
func (a *armedWrites) Wait(ctx context.Context, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if a.count() > 0 {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return a.count() > 0
}

func (a *armedWrites) count() int {
	n := 0
	for _, ch := range a.fired {
		select {
		case <-ch:
			n++
		default:
		}
	}
	return n
}

// Disarm removes the fault where it has not hit and says how many writes
// it hit (more than one when writes on two nodes raced for it).
func (a *armedWrites) Disarm() int {
	for _, p := range a.w.frames {
		p.Heal()
	}
	return a.count()
}

// inject applies one ZooKeeper-side fault and heals it before returning.
// hits counts what it hit (writes, 0 when no write came by in time).
func (w *zkWorld) inject(ctx context.Context, kind FaultKind, rng *rand.Rand, session time.Duration) (hits int, detail string, err error) {
	if kind == Reset || kind == Latency {
		return injectBytes(ctx, w.bytes, kind, rng)
	}
	switch kind {
	case DropReply, DropRequest:
		f := zkfault.DropWriteReply
		if kind == DropRequest {
			f = zkfault.DropWriteRequest
		}
		a := w.armWrites(f)
		a.Wait(ctx, 10*time.Second)
		n := a.Disarm()
		return n, fmt.Sprintf("%d write(s) hit", n), nil
	case PartitionNode:
		i, hold := rng.IntN(len(w.frames)), pace.Between(rng, time.Second, 4*time.Second)
		w.frames[i].Inject(zkfault.Partition)
		pace.Sleep(ctx, hold)
		w.frames[i].Heal()
		return 1, fmt.Sprintf("node %d for %s", i+1, hold.Round(time.Millisecond)), nil
	case PartitionAll, SessionExpiry:
		// Shorter than the session timeout: connection loss only; longer:
		// the ensemble expires every worker's session.
		hold := pace.Between(rng, session/4, session*3/5)
		if kind == SessionExpiry {
			hold = pace.Between(rng, session+time.Second, session+3*time.Second)
			// Workers still opening their sessions after an earlier fault
			// have nothing to expire yet: wait for them (bounded).
			w.waitSessions(ctx, session, 30*time.Second)
		}
		for _, p := range w.frames {
			p.Inject(zkfault.Partition)
		}
		pace.Sleep(ctx, hold)
		for _, p := range w.frames {
			p.Heal()
		}
		return 1, fmt.Sprintf("whole ensemble for %s (session timeout %s)", hold.Round(time.Millisecond), session), nil
	case LeaderKill:
		down := pace.Between(rng, time.Second, 3*time.Second)
		leader, err := w.leader(ctx)
		if err != nil {
			return 0, "", err
		}
		leader.Kill()
		pace.Sleep(ctx, down)
		if err := leader.Start(); err != nil {
			return 1, "", fmt.Errorf("restart zookeeper node %d after kill -9: %w", leader.ID, err)
		}
		return 1, fmt.Sprintf("node %d killed, down %s", leader.ID, down.Round(time.Millisecond)), nil
	}
	return 0, "", fmt.Errorf("fault kind %s is not a ZooKeeper fault", kind)
}

// leader finds the leader, waiting out an election in progress.
func (w *zkWorld) leader(ctx context.Context) (*zktest.Node, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := w.ensemble.Leader()
		if err == nil {
			return n, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Errorf("find the zookeeper leader: %w", err)
		}
		pace.Sleep(ctx, 100*time.Millisecond)
	}
}

// waitSessions waits until every running worker holds a session with the
// workers' timeout, as the nodes' cons command lists them, or timeout.
func (w *zkWorld) waitSessions(ctx context.Context, session time.Duration, timeout time.Duration) {
	marker := fmt.Sprintf(",to=%d,", session.Milliseconds())
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		n := 0
		for _, node := range w.ensemble.Nodes {
			if out, err := zktest.FourLetter(node.Addr, "cons"); err == nil {
				n += strings.Count(out, marker)
			}
		}
		if n >= w.workers {
			return
		}
		pace.Sleep(ctx, 100*time.Millisecond)
	}
}
