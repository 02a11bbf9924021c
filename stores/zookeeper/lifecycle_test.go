package zookeeper_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/zkfault"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// These tests hold one call's compare-and-set back in the fault proxy while
// another client writes, so the write lands between the reads the held call
// decided on and its multi-op. They fail on a backend whose multi-op does
// not pin everything the decision read.

// heldCall runs fn through the proxy with its multi-op held back, runs
// meanwhile once it is held, then releases it and returns fn's answer.
func heldCall(t *testing.T, proxy *zkfault.Proxy, fn func(ctx context.Context) error, meanwhile func()) error {
	t.Helper()
	held := proxy.Inject(zkfault.HoldWriteRequest)
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		done <- fn(ctx)
	}()
	select {
	case <-held:
	case err := <-done:
		t.Fatalf("the call ended before its write was held: %v", err)
	}
	meanwhile()
	proxy.Release()
	return <-done
}

// A publish that lands between Retire's reads and its multi-op must not
// survive the retirement: creating a key does not change the job node's
// data version, so a Retire that pins only that version (and the keys it
// read) would miss the new key, answer success, and leave a reference no
// collection ever removes (issue 10, finding 4).
func TestRetireIsLinearizableWithPublish(t *testing.T) {
	through, proxy, direct := faulty(t, heldSessionTimeout)
	ctx := t.Context()
	require.NoError(t, direct.Publish(ctx, publication(20, 1)))

	var published error
	retired := heldCall(t, proxy,
		func(ctx context.Context) error { return through.Retire(ctx, job, 1, false) },
		func() { published = direct.Publish(ctx, publication(21, 1)) })

	require.NoError(t, retired)
	require.NoError(t, published, "the publish landed before the retirement")
	e, err := direct.Read(ctx, checkpointID(21))
	require.NoError(t, err)
	require.NotNil(t, e.Tombstone, "key 21 is still published after Retire returned: %+v", e.Reference)
	assert.Equal(t, stores.ReasonRetired, e.Tombstone.Reason)
	st, err := direct.ReadJob(ctx, job)
	require.NoError(t, err)
	assert.Equal(t, uint64(21), st.Watermark)
	list, err := direct.List(ctx, job)
	require.NoError(t, err)
	assert.Empty(t, list)
}

// A publish prepared against the old incarnation of a job ID, held until
// the job was retired, forgotten and claimed again, must not land in the
// new incarnation: the job node is rewritten rather than deleted and
// recreated, so its version never repeats (issue 10, finding 7).
func TestPublishPreparedBeforeForgetNeverLandsInTheNewJob(t *testing.T) {
	through, proxy, direct := faulty(t, heldSessionTimeout)
	ctx := t.Context()

	zombie := heldCall(t, proxy,
		func(ctx context.Context) error { return through.Publish(ctx, publication(3, 1)) },
		func() {
			require.NoError(t, direct.Retire(ctx, job, 1, false))
			_, err := direct.CollectTombstones(ctx, job, time.Now().Add(time.Hour))
			require.NoError(t, err)
			require.NoError(t, direct.ClaimEpoch(ctx, job, 2, "new-incarnation"))
		})

	assert.ErrorIs(t, zombie, stores.ErrStaleEpoch)
	e, err := direct.Read(ctx, checkpointID(3))
	require.NoError(t, err)
	assert.True(t, e.Absent(), "the old incarnation's publish landed in the new one: %+v", e)
	st, err := direct.ReadJob(ctx, job)
	require.NoError(t, err)
	assert.Equal(t, stores.JobState{Epoch: 2, Owner: "new-incarnation", ForgottenEpoch: 1}, st)
}

// Found by the linearizability checker: a fence that Verify creates
// between CollectTombstones' reads and its multi-op does not change the
// job node's version, so the collection misses it, forgets the job and
// leaves the old incarnation's fence at a key the reused ID will publish
// (DecideCollect forgets a retired job only once none of its keys is left).
// Fixed by rewriting the job node in every multi-op that writes a key.
func TestCollectSeesAFenceVerifyCreatedMeanwhile(t *testing.T) {
	through, proxy, direct := faulty(t, heldSessionTimeout)
	ctx := t.Context()
	require.NoError(t, direct.Publish(ctx, publication(1, 1)))
	require.NoError(t, direct.Retire(ctx, job, 1, false))

	var verdict stores.Verdict
	var n int
	collected := heldCall(t, proxy,
		func(ctx context.Context) (err error) {
			n, err = through.CollectTombstones(ctx, job, time.Now().Add(time.Hour))
			return err
		},
		func() {
			var err error
			verdict, err = direct.Verify(ctx, checkpointID(5), "other", 1)
			require.NoError(t, err)
			// The collection has not landed yet: it must come after the fence.
			st, err := direct.ReadJob(ctx, job)
			require.NoError(t, err)
			require.True(t, st.Retired)
		})
	require.NoError(t, collected)
	require.Equal(t, stores.Absent, verdict)

	st, err := direct.ReadJob(ctx, job)
	require.NoError(t, err)
	e, err := direct.Read(ctx, checkpointID(5))
	require.NoError(t, err)
	// The collection came after the fence: either it collected the fence
	// too (2 collected, nothing left) or it did not forget the job.
	if st.Owner == "" && !st.Retired {
		assert.Equal(t, 2, n, "the job was forgotten: every key must have gone")
		assert.True(t, e.Absent(), "the job was forgotten with the fence of checkpoint 5 left: %+v", e.Tombstone)
	}
}
