package workflows_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/storefault"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

func TestPublishedFirstTry(t *testing.T) {
	f := newFixture(t, 0)
	req := f.checkpoint(1, false)
	res := f.finalize(req)

	assert.Equal(t, contract.Published, res.Phase)
	assert.Equal(t, uint32(1), res.Attempts)
	assert.True(t, f.entry(1).HoldsToken(req.Token()))
	assert.Equal(t, res.HandleKey, f.entry(1).Reference.Handle)
	assert.True(t, f.exists(res.HandleKey), "the handle the reference points at exists (I1)")
	assert.Zero(t, f.refs.Calls(storefault.OpVerify))
	f.env.AssertActivityNumberOfCalls(t, "Report", 0)
	assert.Equal(t, []stores.JobID{job}, f.retention.jobs, "the worker's retention takes the job, not a coordinator")
}

// FLINK-24543: the first try landed but its reply was lost; Temporal's retry
// of the same attempt finds its own write: Published, no verify needed.
func TestRetryFindsItsOwnWrite(t *testing.T) {
	f := newFixture(t, 0)
	f.refs.Inject(storefault.OpPublish, storefault.DropReply)
	res := f.finalize(f.checkpoint(1, false))
	assert.Equal(t, contract.Published, res.Phase)
	assert.Equal(t, uint32(1), res.Attempts)
	assert.Equal(t, 2, f.refs.Calls(storefault.OpPublish))
}

// A rejection of the fast path's local first attempt cannot rule out an
// earlier run of it in a crashed worker: it is verified and fenced, and the
// regular second attempt's rejection, with no unknown before it, discards.
// The checkpoint lies at the watermark, so the standing epoch's request is
// rejected (and it alone may fence above the watermark anyway).
func TestRejectedIsFencedThenDiscards(t *testing.T) {
	f := newFixture(t, 0)
	require.NoError(t, f.inner.Subsume(t.Context(), stores.CheckpointID{JobID: job, Checkpoint: 1}, 1)) // the watermark reaches 1
	req := f.checkpoint(1, false)
	res := f.finalize(req)

	assert.Equal(t, contract.Discarded, res.Phase)
	assert.Equal(t, uint32(2), res.Attempts)
	assert.Contains(t, res.Reason, "attempt 2 rejected")
	assert.Contains(t, res.Reason, "watermark")
	assert.Equal(t, 2, f.refs.Calls(storefault.OpVerify), "the local attempt's rejection is verified once, then the discard fences")
	assert.False(t, f.exists(req.ExclusivePrefix+"data-0"))
	assert.False(t, f.exists(res.HandleKey))
	assert.True(t, f.exists("c1/j1/shared/sst-1"), "shared files are never discarded")
	e := f.entry(1)
	require.NotNil(t, e.Tombstone, "the subsumption's tombstone stands")
	assert.Equal(t, stores.ReasonSubsumed, e.Tombstone.Reason)
}

func TestUnknownThenVerifyPresent(t *testing.T) {
	f := newFixture(t, 0)
	f.refs.Inject(storefault.OpPublish, storefault.DropReply, storefault.DropRequest, storefault.DropRequest) // every try of attempt 1 ambiguous
	req := f.checkpoint(1, false)
	res := f.finalize(req)

	assert.Equal(t, contract.Published, res.Phase)
	assert.Equal(t, uint32(1), res.Attempts)
	assert.Equal(t, 1, f.refs.Calls(storefault.OpVerify))
	assert.True(t, f.entry(1).HoldsToken(req.Token()))
	assert.True(t, f.exists(req.ExclusivePrefix+"data-0"))
}

func TestUnknownFencedAbsentRepublishes(t *testing.T) {
	f := newFixture(t, 0)
	f.refs.Inject(storefault.OpPublish, storefault.DropRequest, storefault.DropRequest, storefault.DropRequest)
	req := f.checkpoint(1, false)
	res := f.finalize(req)

	assert.Equal(t, contract.Published, res.Phase)
	assert.Equal(t, uint32(2), res.Attempts)
	e := f.entry(1)
	require.NotNil(t, e.Reference)
	assert.Equal(t, uint32(2), e.Reference.Attempt, "attempt 2 replaced our own fence")
}

func TestUnknownFencedAbsentExhaustedDiscards(t *testing.T) {
	f := newFixture(t, 0)
	f.refs.Inject(storefault.OpPublish, storefault.DropRequest, storefault.DropRequest, storefault.DropRequest, storefault.DropRequest, storefault.DropRequest, storefault.DropRequest)
	req := f.checkpoint(1, false)
	req.MaxPublishAttempts = 2
	res := f.finalize(req)

	assert.Equal(t, contract.Discarded, res.Phase)
	assert.Equal(t, uint32(2), res.Attempts)
	assert.Equal(t, 3, f.refs.Calls(storefault.OpVerify), "two attempts verified, then the discard's own fence")
	e := f.entry(1)
	require.NotNil(t, e.Tombstone, "discarded only behind a fence")
	assert.Equal(t, uint32(math.MaxUint32), e.Tombstone.FencedUpTo, "the discard fences every attempt")
	assert.False(t, f.exists(req.ExclusivePrefix+"data-0"))
}

// A rejection on a retry of an attempt whose first try was Unknown may hide
// that first try's write: verify, never discard straight away.
func TestUnknownThenRejectedVerifies(t *testing.T) {
	f := newFixture(t, 0)
	f.refs.Inject(storefault.OpPublish, storefault.DropReply) // attempt 1 lands, its reply is lost
	deposeBeforeRetry(f)                                      // and a new leader takes over before the retry
	req := f.checkpoint(1, false)
	res := f.finalize(req)

	// The retry reads the key, finds its own write: Published, nothing lost.
	assert.Equal(t, contract.Published, res.Phase)
	assert.True(t, f.entry(1).HoldsToken(req.Token()))
	assert.True(t, f.exists(req.ExclusivePrefix+"data-0"))
}

// A deposed epoch's rejected retry goes to verify, which answers Absent
// without a fence: once a newer claim stands none of its attempts can land,
// and a fence could keep the standing leader from publishing that key. Its
// state stays: the directory is the standing epoch's to decide.
func TestUnknownThenRejectedOnRetryGoesToVerify(t *testing.T) {
	f := newFixture(t, 0)
	f.refs.Inject(storefault.OpPublish, storefault.DropRequest)
	deposeBeforeRetry(f)
	req := f.checkpoint(1, false)
	res := f.finalize(req)

	assert.Equal(t, uint32(2), res.Attempts, "the rejected retry went to verify, then republished")
	assert.Equal(t, contract.Discarded, res.Phase, "after the verify, attempt 2 is rejected definitely")
	assert.Contains(t, res.Reason, "its data stays")
	assert.Contains(t, res.Reason, "deposed")
	assert.Zero(t, f.refs.Calls(storefault.OpVerify), "no fence")
	assert.True(t, f.entry(1).Absent())
	assert.True(t, f.exists(req.ExclusivePrefix+"data-0"))
}

func TestUnreachableForDaysStaysVerifying(t *testing.T) {
	f := newFixture(t, 0)
	f.refs.SetUnreachable(true)
	req := f.checkpoint(1, false)
	f.env.RegisterDelayedCallback(func() {
		st := f.status()
		assert.Equal(t, contract.Verifying, st.Phase)
		assert.Greater(t, f.refs.Calls(storefault.OpVerify), 100, "still verifying, with backoff")
		assert.True(t, f.exists(req.ExclusivePrefix+"data-0"), "nothing discarded (I2)")
		assert.True(t, f.exists(st.HandleKey))
		f.refs.SetUnreachable(false)
	}, 72*time.Hour)
	res := f.finalize(req)

	assert.Equal(t, contract.Published, res.Phase, "once the store answers: fenced Absent, then attempt 2")
	assert.Equal(t, uint32(2), res.Attempts)
}

func TestRetryNowSignal(t *testing.T) {
	f := newFixture(t, 0)
	f.refs.SetUnreachable(true)
	var before int
	f.env.RegisterDelayedCallback(func() {
		before = f.status().Verifications
		f.env.SignalWorkflow(contract.RetryNowSignal, nil)
	}, time.Hour)
	f.env.RegisterDelayedCallback(func() {
		assert.Equal(t, before+1, f.status().Verifications, "retry-now started a fresh verify at once")
		f.refs.SetUnreachable(false)
		f.env.SignalWorkflow(contract.RetryNowSignal, nil)
	}, time.Hour+time.Second)
	res := f.finalize(f.checkpoint(1, false))
	assert.Equal(t, contract.Published, res.Phase)
}

func TestAbandonKeepsState(t *testing.T) {
	f := newFixture(t, 0)
	f.refs.SetUnreachable(true)
	req := f.checkpoint(1, false)
	f.env.RegisterDelayedCallback(func() {
		f.env.SignalWorkflow(contract.AbandonSignal, "kept for forensics by ops")
	}, time.Hour)
	res := f.finalize(req)

	assert.Equal(t, contract.Abandoned, res.Phase)
	assert.Equal(t, "kept for forensics by ops", res.Reason)
	assert.True(t, f.exists(req.ExclusivePrefix+"data-0"))
	assert.True(t, f.exists(res.HandleKey), "abandoning never discards")
	m, ok, err := f.states.Mark(t.Context(), res.HandleKey)
	require.NoError(t, err)
	assert.True(t, ok, "the state is marked kept beside its handle")
	assert.Equal(t, "kept for forensics by ops", m.Reason)
}

func TestInvalidRequestFailsWithNothingWritten(t *testing.T) {
	f := newFixture(t, 0)
	req := f.checkpoint(1, false)
	req.ExclusivePrefix = "c1/j1/" // the whole job: refused
	res := f.finalize(req)

	assert.Equal(t, contract.Failed, res.Phase)
	assert.Contains(t, res.Reason, "exclusivePrefix")
	assert.Empty(t, res.HandleKey)
	assert.True(t, f.entry(1).Absent())
	assert.True(t, f.exists("c1/j1/chk-1/data-0"))
}

func TestMissingMetadataFails(t *testing.T) {
	f := newFixture(t, 0)
	req := f.checkpoint(1, false)
	req.MetadataSHA256 = "0000000000000000000000000000000000000000000000000000000000000000"
	res := f.finalize(req)

	assert.Equal(t, contract.Failed, res.Phase)
	assert.True(t, f.entry(1).Absent())
	assert.Zero(t, f.refs.Calls(storefault.OpPublish))
}

// deposeBeforeRetry claims epoch 2 just before the second publish call.
func deposeBeforeRetry(f *fixture) {
	f.refs.OnCall(func(op string, call int) {
		if op == storefault.OpPublish && call == 2 {
			require.NoError(f.t, f.inner.ClaimEpoch(context.Background(), job, 2, "jm-2"))
		}
	})
}

// The fast path's workflow task retried after its worker died runs persist
// again. If the lost run had published and the coordinator has subsumed the
// checkpoint and discarded its state since, the data is gone: the store's
// tombstone of the token says it was published.
func TestRetriedTaskFindsItsCheckpointSubsumed(t *testing.T) {
	f := newFixture(t, 0)
	req := f.publishDirect(1, false) // what the lost run of the task did
	require.NoError(t, f.inner.Subsume(t.Context(), req.CheckpointID(), 1))
	key, err := f.states.Write(t.Context(), activities.HandleOf(req)) // the key publishDirect wrote
	require.NoError(t, err)
	h, err := f.states.ReadKey(t.Context(), key)
	require.NoError(t, err)
	_, err = f.states.Discard(t.Context(), h)
	require.NoError(t, err)
	require.False(t, f.exists(req.MetadataKey))

	res := f.finalize(req)
	assert.Equal(t, contract.Published, res.Phase, "reason: %s", res.Reason)
	assert.Contains(t, res.Reason, "subsumed")
	assert.Zero(t, f.refs.Calls(storefault.OpPublish), "nothing is published again")
}

// Data that was never there still fails, after the store is asked.
func TestMissingDataFails(t *testing.T) {
	f := newFixture(t, 0)
	req := f.checkpoint(1, false)
	req.MetadataKey = req.ExclusivePrefix + "no-such-metadata"
	res := f.finalize(req)
	assert.Equal(t, contract.Failed, res.Phase)
	assert.True(t, f.entry(1).Absent(), "nothing written")
}
