package zookeeper_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/zktest"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// ensemble is a 3-node ensemble for one test, with its leader and one
// follower.
func ensemble(t *testing.T) (e *zktest.Ensemble, leader, follower *zktest.Node) {
	t.Helper()
	realserver.Require(t, "ZooKeeper ensemble")
	e, err := zktest.StartEnsemble(3)
	require.NoError(t, err)
	t.Cleanup(func() { e.Cleanup(t.Failed()) })
	leader, err = e.Leader()
	require.NoError(t, err)
	for _, n := range e.Nodes {
		if n != leader {
			return e, leader, n
		}
	}
	t.Fatal("no follower")
	return nil, nil, nil
}

// Issue 22: every decision rests on a linearizable read. A claim of epoch 2
// completed through the leader; then a publish of epoch 2 was sent by a
// client whose session is on a follower that lags behind (paused while the
// claim committed, resumed with the publish waiting). Without a sync the
// publish read the follower's stale job node, epoch 1, and was Rejected as
// stale although the claim had completed before it began: a rejection no
// sequential history allows, after which the finalization discards state
// it could have published.
func TestDecisionsOnALaggingFollowerAreLinearizable(t *testing.T) {
	_, leader, follower := ensemble(t)
	root := uniqueRoot()
	onLeader := open(t, config(leader.Addr, root))
	onFollower := open(t, configWith(follower.Addr, root, heldSessionTimeout))
	raw, _, err := zk.Connect([]string{leader.Addr}, sessionTimeout, zk.WithLogInfo(false))
	require.NoError(t, err)
	t.Cleanup(raw.Close)

	const rounds = 20
	for round, tested := 0, 0; tested < rounds; round++ {
		require.Less(t, round, 3*rounds, "only %d of %d rounds kept the paused follower in the ensemble", tested, round)
		job := stores.JobID{Cluster: "c1", Job: fmt.Sprintf("lag-%d", round)}
		require.NoError(t, onLeader.ClaimEpoch(t.Context(), job, 1, "jm-1"))
		// The follower's session has seen the first claim.
		st, err := onFollower.ReadJob(t.Context(), job)
		require.NoError(t, err)
		require.Equal(t, uint64(1), st.Epoch)

		require.NoError(t, follower.Pause())
		// A backlog the follower applies before the claim once resumed,
		// so that its stale moment is not over before the publish reads.
		backlog(t, raw, fmt.Sprintf("%s/backlog-%d", root, round))
		require.NoError(t, onLeader.ClaimEpoch(t.Context(), job, 2, "jm-2"), "the leader and the other follower are a quorum")
		published := make(chan error, 1)
		go func() {
			published <- onFollower.Publish(t.Context(), stores.Publication{
				CheckpointID: stores.CheckpointID{JobID: job, Checkpoint: 1}, Epoch: 2,
				Reference: stores.Reference{Handle: "h", Token: "tok", Attempt: 1},
			})
		}()
		time.Sleep(200 * time.Millisecond) // the publish's first read waits in the follower's socket
		require.NoError(t, follower.Resume())
		err = <-published
		if errors.Is(err, zk.ErrConnectionClosed) {
			// Paused past the ensemble's sync limit (a loaded machine makes
			// the backlog slow), the follower was dropped by the leader and
			// closed its clients on rejoining: nothing was read, stale or not.
			t.Logf("round %d: the leader dropped the paused follower; the round tested nothing", round)
			continue
		}
		require.NoError(t, err, "round %d: the publish began after the claim of epoch 2 completed", round)
		e, err := onFollower.Read(t.Context(), stores.CheckpointID{JobID: job, Checkpoint: 1})
		require.NoError(t, err)
		require.True(t, e.HoldsToken("tok"), "%+v", e)
		tested++
	}
}

// backlog writes many small transactions at once through the leader.
func backlog(t *testing.T, raw *zk.Conn, dir string) {
	t.Helper()
	_, err := raw.Create(dir, nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	errs := make(chan error, 200)
	for i := range cap(errs) {
		go func() {
			_, err := raw.Create(fmt.Sprintf("%s/%d", dir, i), []byte("x"), 0, zk.WorldACL(zk.PermAll))
			errs <- err
		}()
	}
	for range cap(errs) {
		require.NoError(t, <-errs)
	}
}
