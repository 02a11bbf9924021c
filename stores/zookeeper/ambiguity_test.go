package zookeeper_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/zkfault"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/zookeeper"
)

// These tests put a real ZooKeeper behind a frame-aware fault proxy and make
// the one write of a publish ambiguous. They fail if an ambiguous publish is
// classified Rejected, or if Verify's fence does not stop a replay.

// faulty opens a store through a fault proxy, with the given session
// timeout, and a direct one on the same root to observe the truth.
func faulty(t *testing.T, timeout time.Duration) (*zookeeper.Store, *zkfault.Proxy, *zookeeper.Store) {
	t.Helper()
	proxy, err := zkfault.Start(serverAddr(t))
	require.NoError(t, err)
	t.Cleanup(proxy.Close)
	root := uniqueRoot()
	through := open(t, configWith(proxy.Addr, root, timeout))
	direct := open(t, config(serverAddr(t), root))
	require.NoError(t, direct.ClaimEpoch(t.Context(), job, 1, "jm"))
	return through, proxy, direct
}

func checkpointID(n uint64) stores.CheckpointID {
	return stores.CheckpointID{JobID: job, Checkpoint: n}
}

func publication(n uint64, attempt uint32) stores.Publication {
	return stores.Publication{
		CheckpointID: checkpointID(n), Epoch: 1,
		Reference: stores.Reference{Handle: "handles/c1/j1/1.json", Token: "tok", Attempt: attempt},
	}
}

// retryUntil calls fn until it stops failing with Unknown, as the workflow's
// verify branch does while the session recovers.
func retryUntil[T any](t *testing.T, fn func(ctx context.Context) (T, error)) (T, error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		v, err := fn(ctx)
		cancel()
		if stores.OutcomeOf(err) != stores.Unknown || time.Now().After(deadline) {
			return v, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func verifyUntilAnswered(t *testing.T, s *zookeeper.Store, n uint64, attempt uint32) stores.Verdict {
	t.Helper()
	v, err := retryUntil(t, func(ctx context.Context) (stores.Verdict, error) {
		return s.Verify(ctx, checkpointID(n), "tok", attempt)
	})
	require.NoError(t, err)
	return v
}

// FLINK-22494: the write landed, the reply was lost. Unknown, never
// Rejected; Verify then finds it Present.
func TestReplyDroppedAfterAppliedWriteIsUnknownThenPresent(t *testing.T) {
	s, proxy, direct := faulty(t, sessionTimeout)
	fired := proxy.Inject(zkfault.DropWriteReply)

	err := s.Publish(t.Context(), publication(1, 1))
	<-fired
	require.Error(t, err)
	assert.Equal(t, stores.Unknown, stores.OutcomeOf(err), "a lost reply must never read as Rejected: %v", err)
	e, rerr := direct.Read(t.Context(), checkpointID(1))
	require.NoError(t, rerr)
	require.True(t, e.HoldsToken("tok"), "the write did land")

	assert.Equal(t, stores.Present, verifyUntilAnswered(t, s, 1, 1))
}

// FLINK-24543 / FLINK-28265: a retry of an applied write finds "node exists";
// the store re-reads, sees its own token and answers Published.
func TestRetryFindsItsOwnAppliedWrite(t *testing.T) {
	s, proxy, _ := faulty(t, sessionTimeout)
	fired := proxy.Inject(zkfault.DropWriteReply)
	require.Equal(t, stores.Unknown, stores.OutcomeOf(s.Publish(t.Context(), publication(1, 1))))
	<-fired

	_, err := retryUntil(t, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, s.Publish(ctx, publication(1, 1))
	})
	require.NoError(t, err, "a retry that finds its own write is Published")
}

// The request never reached the server: Unknown; Verify fences, answers
// Absent, and the same attempt replayed afterwards is Rejected (I6).
func TestRequestDroppedIsUnknownThenFencedAbsent(t *testing.T) {
	s, proxy, direct := faulty(t, sessionTimeout)
	fired := proxy.Inject(zkfault.DropWriteRequest)

	err := s.Publish(t.Context(), publication(1, 1))
	<-fired
	require.Error(t, err)
	assert.Equal(t, stores.Unknown, stores.OutcomeOf(err), "%v", err)

	assert.Equal(t, stores.Absent, verifyUntilAnswered(t, s, 1, 1))
	requireReplayFenced(t, direct, 1, 1)
}

// A partition long enough for the server to expire the session, with the
// publish in flight: Unknown; after the heal the client runs on a new
// session, Verify fences Absent and the replay is Rejected.
func TestSessionExpiryDuringPublish(t *testing.T) {
	s, proxy, direct := faulty(t, sessionTimeout)
	proxy.Inject(zkfault.Partition)

	err := s.Publish(t.Context(), publication(1, 1))
	require.Error(t, err)
	assert.Equal(t, stores.Unknown, stores.OutcomeOf(err), "%v", err)

	// The session timeout is 4s; the server expires the session after it.
	time.Sleep(6 * time.Second)
	proxy.Heal()

	assert.Equal(t, stores.Absent, verifyUntilAnswered(t, s, 1, 1))
	requireReplayFenced(t, direct, 1, 1)
}

// A zombie publish of an attempt the fence covers changes nothing, even one
// that lost its reply the first time round.
func TestReplayAfterFenceRejected(t *testing.T) {
	s, proxy, direct := faulty(t, sessionTimeout)
	fired := proxy.Inject(zkfault.DropWriteRequest)
	require.Equal(t, stores.Unknown, stores.OutcomeOf(s.Publish(t.Context(), publication(1, 2))))
	<-fired
	assert.Equal(t, stores.Absent, verifyUntilAnswered(t, s, 1, 2))
	for attempt := uint32(1); attempt <= 2; attempt++ {
		requireReplayFenced(t, direct, 1, attempt)
	}
	// The workflow's next attempt may replace its own fence.
	require.NoError(t, direct.Publish(t.Context(), publication(1, 3)))
	assert.Equal(t, stores.Present, verifyUntilAnswered(t, s, 1, 3))
}

func requireReplayFenced(t *testing.T, s *zookeeper.Store, n uint64, attempt uint32) {
	t.Helper()
	before, err := s.Read(t.Context(), checkpointID(n))
	require.NoError(t, err)
	require.NotNil(t, before.Tombstone, "Absent stands on a tombstone")

	err = s.Publish(t.Context(), publication(n, attempt))
	require.ErrorIs(t, err, stores.ErrFenced)
	assert.Equal(t, stores.Rejected, stores.OutcomeOf(err))

	after, err := s.Read(t.Context(), checkpointID(n))
	require.NoError(t, err)
	assert.Equal(t, before, after, "a replay after the fence changes nothing")
}
