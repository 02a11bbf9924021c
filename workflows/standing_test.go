package workflows_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/storefault"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/workflowtest"
)

// Regression tests for "only the standing claim's own finalization
// deletes" (docs/design.md, lifecycle rules; issue 22 findings 1 and 2).
// Both failed at b0bb845.

// An old incarnation's finalization gets Unknown on publish; before its
// retry the job is retired, collected, forgotten and claimed again, and
// the new leader writes chk-5/. The old finalization must neither fence key
// 5 of the new incarnation nor delete the new leader's files (finding 1).
func TestForgottenIncarnationKeepsTheNewIncarnationsCheckpoint(t *testing.T) {
	f := newFixture(t, 0)
	bucket := jobmanager.Bucket{Dir: f.dir}
	old := f.checkpoint(5, false)
	f.refs.Inject(storefault.OpPublish, storefault.DropRequest)
	var fresh contract.FinalizeRequest
	f.refs.OnCall(func(op string, call int) {
		if op != storefault.OpPublish || call != 2 {
			return
		}
		require.NoError(t, f.inner.Retire(t.Context(), job, 1, false))
		_, err := f.inner.CollectTombstones(t.Context(), job, time.Now().Add(time.Hour))
		require.NoError(t, err)
		require.NoError(t, f.inner.ClaimEpoch(t.Context(), job, 2, "jm-2"))
		fresh, err = bucket.WriteCheckpoint(job, 2, 5, false)
		require.NoError(t, err)
	})

	res := f.finalize(old)
	assert.NotEqual(t, contract.Published, res.Phase, res.Reason)
	assert.True(t, f.entry(5).Absent(), "key 5 of the new incarnation is not fenced: %+v", f.entry(5))
	assert.True(t, f.exists(fresh.MetadataKey), "the new leader's metadata stays")
	assert.True(t, f.exists(jobmanager.DataKey(job, 5)), "the new leader's data stays")

	f.refs.OnCall(func(string, int) {})
	f.newEnv()
	res = f.finalize(fresh)
	assert.Equal(t, contract.Published, res.Phase, res.Reason)
	workflowtest.Resolves(t, f.exists, fresh)
}

// A request of an epoch nobody claimed names checkpoint 7, which the
// healthy epoch-1 leader has written and is about to trigger: it must not
// fence key 7 nor delete chk-7/, and the leader's finalization publishes
// (finding 2).
func TestUnclaimedEpochKeepsTheStandingLeadersCheckpoint(t *testing.T) {
	f := newFixture(t, 0)
	live := f.checkpoint(7, false)
	foreign := live
	foreign.Epoch = 99

	res := f.finalize(foreign)
	assert.NotEqual(t, contract.Published, res.Phase, res.Reason)
	assert.NotContains(t, res.Reason, "may still publish over its own fence")
	assert.Contains(t, res.Reason, "standing")
	assert.True(t, f.entry(7).Absent(), "key 7 is not fenced: %+v", f.entry(7))
	assert.True(t, f.exists(live.MetadataKey), "the leader's metadata stays")
	assert.True(t, f.exists(jobmanager.DataKey(job, 7)), "the leader's data stays")

	f.newEnv()
	res = f.finalize(live)
	assert.Equal(t, contract.Published, res.Phase, res.Reason)
	workflowtest.Resolves(t, f.exists, live)
	assert.True(t, f.entry(7).HoldsToken(live.Token()))
}
