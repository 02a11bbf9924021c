package workflows_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/storefault"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/contracttest"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/workflows"
)

func TestRetentionPlan(t *testing.T) {
	ref := func(n uint64, sp bool) stores.Entry {
		return stores.Entry{Checkpoint: n, Reference: &stores.Reference{Savepoint: sp}}
	}
	ids := func(es []stores.Entry) (out []uint64) {
		for _, e := range es {
			out = append(out, e.Checkpoint)
		}
		return out
	}
	cases := []struct {
		name    string
		entries []stores.Entry
		n       int
		keep    []uint64
		remove  []uint64
	}{
		{"keeps the newest n", []stores.Entry{ref(3, false), ref(1, false), ref(2, false)}, 2, []uint64{3, 2}, []uint64{1}},
		{"savepoints count, newest checkpoint kept on top", []stores.Entry{ref(1, false), ref(2, true), ref(3, false), ref(4, true), ref(5, true)}, 2, []uint64{5, 4, 3}, []uint64{1, 2}},
		{"only savepoints", []stores.Entry{ref(1, true), ref(2, true)}, 1, []uint64{2}, []uint64{1}},
		{"fewer than n", []stores.Entry{ref(7, false)}, 3, []uint64{7}, nil},
	}
	for _, c := range cases {
		keep, remove := activities.RetentionPlan(c.entries, c.n)
		assert.Equal(t, c.keep, keep, c.name)
		assert.Equal(t, c.remove, ids(remove), c.name)
	}
}

// publishDirect finalizes checkpoint n the way a finished FinalizeCheckpoint
// leaves it: handle persisted, reference published.
func (f *fixture) publishDirect(n uint64, savepoint bool) contract.FinalizeRequest {
	f.t.Helper()
	req := f.checkpoint(n, savepoint)
	key, err := f.states.Write(f.t.Context(), activities.HandleOf(req))
	require.NoError(f.t, err)
	require.NoError(f.t, f.inner.Publish(f.t.Context(), stores.Publication{
		CheckpointID: req.CheckpointID(), Epoch: 1,
		Reference: stores.Reference{Handle: key, Token: req.Token(), Attempt: 1, Savepoint: savepoint},
	}))
	return req
}

func TestCoordinatorRetentionWithSavepoints(t *testing.T) {
	f := newFixture(t, 2)
	savepoints := map[uint64]bool{2: true, 5: true, 6: true}
	reqs := map[uint64]contract.FinalizeRequest{}
	for n := uint64(1); n <= 6; n++ {
		reqs[n] = f.publishDirect(n, savepoints[n])
	}
	f.env.RegisterDelayedCallback(func() {
		f.env.SignalWorkflow(contract.PublishedSignal, contract.PublishedReport{Cluster: "c1", Job: "j1", Epoch: 1, Checkpoint: 6})
	}, time.Second)
	f.env.RegisterDelayedCallback(func() {
		st := f.coordinatorStatus()
		assert.Equal(t, []uint64{6, 5, 4}, st.Retained)
		assert.Equal(t, 3, st.Removed)
		f.env.CancelWorkflow()
	}, time.Hour)
	f.env.ExecuteWorkflow(contract.CoordinatorWorkflow, contract.CoordinatorState{Cluster: "c1", Job: "j1", Epoch: 1})

	list, err := f.inner.List(t.Context(), job)
	require.NoError(t, err)
	var left []uint64
	for _, e := range list {
		left = append(left, e.Checkpoint)
	}
	assert.Equal(t, []uint64{4, 5, 6}, left, "two newest (savepoints) plus the newest checkpoint (I5)")
	for _, n := range []uint64{1, 2, 3} {
		e := f.entry(n)
		require.NotNil(t, e.Tombstone, "checkpoint %d", n)
		want := map[bool]stores.Reason{false: stores.ReasonSubsumed, true: stores.ReasonSavepoint}[savepoints[n]]
		assert.Equal(t, want, e.Tombstone.Reason, "checkpoint %d: a savepoint's tombstone is its record", n)
	}
	st, err := f.inner.ReadJob(t.Context(), job)
	require.NoError(t, err)
	assert.Equal(t, uint64(3), st.Watermark)

	assert.False(t, f.exists("c1/j1/chk-1/data-0"), "subsumed checkpoint's state discarded")
	assert.False(t, f.exists("c1/j1/chk-3/data-0"))
	assert.True(t, f.exists("c1/j1/chk-2/data-0"), "a savepoint's data is never discarded")
	assert.True(t, f.exists("c1/j1/chk-4/data-0"))
	assert.True(t, f.exists("c1/j1/shared/sst-1"))
}

// A subsume whose reply is lost is retried; the retry finds the tombstone
// (confirmed) and only then is the state discarded.
func TestSubsumeUnknownConfirmedThenDiscarded(t *testing.T) {
	f := newFixture(t, 1)
	req := f.publishDirect(1, false)
	f.refs.Inject(storefault.OpSubsume, storefault.DropReply)
	f.env.ExecuteWorkflow(contract.SubsumeWorkflow, subsumeRequest(f, req, 1))

	require.True(t, f.env.IsWorkflowCompleted())
	var res workflows.SubsumeResult
	contracttest.DecodeChecked(t, "subsume-result.schema.json", f.env.GetWorkflowResult, &res)
	assert.False(t, res.Deposed)
	assert.Equal(t, 2, f.refs.Calls(storefault.OpSubsume))
	assert.Equal(t, stores.ReasonSubsumed, f.entry(1).Tombstone.Reason)
	assert.False(t, f.exists("c1/j1/chk-1/data-0"))
}

// A deposed epoch never removes and never discards.
func TestSubsumeDeposedKeepsEverything(t *testing.T) {
	f := newFixture(t, 1)
	req := f.publishDirect(1, false)
	require.NoError(t, f.inner.ClaimEpoch(t.Context(), job, 2, "jm-2"))
	f.env.ExecuteWorkflow(contract.SubsumeWorkflow, subsumeRequest(f, req, 1))

	var res workflows.SubsumeResult
	contracttest.DecodeChecked(t, "subsume-result.schema.json", f.env.GetWorkflowResult, &res)
	assert.True(t, res.Deposed)
	assert.NotNil(t, f.entry(1).Reference)
	assert.True(t, f.exists("c1/j1/chk-1/data-0"))
}

func subsumeRequest(f *fixture, req contract.FinalizeRequest, epoch uint64) workflows.SubsumeRequest {
	e := f.entry(req.Checkpoint)
	require.NotNil(f.t, e.Reference, fmt.Sprintf("checkpoint %d published", req.Checkpoint))
	return workflows.SubsumeRequest{CheckpointID: req.CheckpointID(), Epoch: epoch, Owner: jobmanager.Owner(epoch), HandleKey: e.Reference.Handle}
}

func TestClaimEpochRefusesStale(t *testing.T) {
	f := newFixture(t, 0)
	f.env.ExecuteWorkflow(contract.ClaimWorkflow, contract.ClaimRequest{Cluster: "c1", Job: "j1", Epoch: 1, Owner: "jm-other"})
	require.Error(t, f.env.GetWorkflowError())
	assert.Contains(t, f.env.GetWorkflowError().Error(), "Rejected.StaleEpoch")
}

func TestRetireJob(t *testing.T) {
	for _, discard := range []bool{false, true} {
		f := newFixture(t, 0)
		f.publishDirect(1, false)
		f.env.ExecuteWorkflow(contract.RetireWorkflow, contract.RetireRequest{Cluster: "c1", Job: "j1", Epoch: 1, Owner: jobmanager.Owner(1), DiscardCheckpoints: discard})
		require.NoError(t, f.env.GetWorkflowError())
		want := stores.ReasonRetained
		if discard {
			want = stores.ReasonRetired
		}
		assert.Equal(t, want, f.entry(1).Tombstone.Reason, "discard %t", discard)
		// With no finalizations to ask, a discarding retirement leaves
		// the state to the reconciler (retired_test.go discards it).
		assert.True(t, f.exists("c1/j1/chk-1/data-0"), "discard %t", discard)
	}
}

// On the fast path a report can overtake its publish: a pass that does not
// see the reported checkpoint passes again a moment later, and retention
// catches up without another report.
func TestCoordinatorRechecksAReportThatOvertookItsPublish(t *testing.T) {
	f := newFixture(t, 1)
	f.publishDirect(1, false)
	f.env.RegisterDelayedCallback(func() {
		// Checkpoint 2 reports before its reference lands.
		f.env.SignalWorkflow(contract.PublishedSignal, contract.PublishedReport{Cluster: "c1", Job: "j1", Epoch: 1, Checkpoint: 2})
	}, time.Second)
	f.env.RegisterDelayedCallback(func() { f.publishDirect(2, false) }, 1500*time.Millisecond)
	f.env.RegisterDelayedCallback(func() {
		st := f.coordinatorStatus()
		assert.Equal(t, 2, st.Passes, "the pass that missed checkpoint 2, then the recheck")
		assert.Equal(t, []uint64{2}, st.Retained)
		assert.Equal(t, 1, st.Removed)
		f.env.CancelWorkflow()
	}, time.Hour)
	f.env.ExecuteWorkflow(contract.CoordinatorWorkflow, contract.CoordinatorState{Cluster: "c1", Job: "j1", Epoch: 1})

	e, err := f.inner.Read(t.Context(), stores.CheckpointID{JobID: job, Checkpoint: 1})
	require.NoError(t, err)
	require.NotNil(t, e.Tombstone, "checkpoint 1 subsumed after the recheck")
}

// The coordinator removes under the epoch the store says is claimed, never
// one a report names: reports of an epoch nobody claimed (a job manager that
// triggers before its claim lands, or a deposed one's) neither depose it
// nor stop retention (issue 10, finding 6: at e5e919a the coordinator took
// the report's epoch, was refused as stale, and stayed deposed for good).
func TestCoordinatorRemovesUnderTheStoresClaim(t *testing.T) {
	f := newFixture(t, 1)
	f.publishDirect(1, false)
	f.publishDirect(2, false)
	report := func(epoch, n uint64) {
		f.env.SignalWorkflow(contract.PublishedSignal, contract.PublishedReport{Cluster: "c1", Job: "j1", Epoch: epoch, Checkpoint: n})
	}
	f.env.RegisterDelayedCallback(func() { report(9, 5) }, time.Second) // epoch 9 was never claimed
	f.env.RegisterDelayedCallback(func() {
		st := f.coordinatorStatus()
		assert.False(t, st.Deposed, "an unclaimed epoch's report deposes nothing")
		assert.Equal(t, uint64(1), st.Epoch, "the store's claim, not the report's")
		assert.Equal(t, 1, st.Removed)
		f.publishDirect(3, false)
		report(1, 3)
	}, time.Minute)
	f.env.RegisterDelayedCallback(func() {
		st := f.coordinatorStatus()
		assert.Equal(t, 2, st.Removed, "retention goes on")
		assert.Equal(t, []uint64{3}, st.Retained)
		f.env.CancelWorkflow()
	}, time.Hour)
	f.env.ExecuteWorkflow(contract.CoordinatorWorkflow, contract.CoordinatorState{Cluster: "c1", Job: "j1", Epoch: 1})
	assert.NotNil(t, f.entry(1).Tombstone)
	assert.NotNil(t, f.entry(2).Tombstone)
	assert.NotNil(t, f.entry(3).Reference)
}

// A new claim moves the coordinator to it; an old leader's report no
// longer counts, and a retired job is left alone.
func TestCoordinatorFollowsNewClaimsAndRetirement(t *testing.T) {
	f := newFixture(t, 1)
	f.publishDirect(1, false)
	f.publishDirect(2, false)
	require.NoError(t, f.inner.ClaimEpoch(t.Context(), job, 2, "jm-2"))
	f.env.RegisterDelayedCallback(func() {
		f.env.SignalWorkflow(contract.PublishedSignal, contract.PublishedReport{Cluster: "c1", Job: "j1", Epoch: 1, Checkpoint: 2})
	}, time.Second)
	f.env.RegisterDelayedCallback(func() {
		st := f.coordinatorStatus()
		assert.Equal(t, uint64(2), st.Epoch)
		assert.Equal(t, 1, st.Removed, "removed under epoch 2, the standing claim")
		require.NoError(t, f.inner.Retire(t.Context(), job, 2, true))
		f.env.SignalWorkflow(contract.PublishedSignal, contract.PublishedReport{Cluster: "c1", Job: "j1", Epoch: 2, Checkpoint: 2})
	}, time.Minute)
	f.env.RegisterDelayedCallback(func() {
		assert.Equal(t, 1, f.coordinatorStatus().Removed, "a retired job's references are the retirement's")
		f.env.CancelWorkflow()
	}, time.Hour)
	f.env.ExecuteWorkflow(contract.CoordinatorWorkflow, contract.CoordinatorState{Cluster: "c1", Job: "j1", Epoch: 1})
	assert.Equal(t, stores.ReasonRetained, f.entry(2).Tombstone.Reason)
}

// coordinatorStatus queries the running coordinator's status.
func (f *fixture) coordinatorStatus() contract.CoordinatorStatus {
	f.t.Helper()
	v, err := f.env.QueryWorkflow(contract.StatusQuery)
	require.NoError(f.t, err)
	var st contract.CoordinatorStatus
	contracttest.DecodeChecked(f.t, "coordinator-status.schema.json", v.Get, &st)
	return st
}

// runningFinalizations answers that the named finalizations still run and
// every other one has closed.
type runningFinalizations map[string]bool

func (r runningFinalizations) Finalization(_ context.Context, id string) (activities.FinalizationState, error) {
	return activities.FinalizationState{WorkflowID: id, Found: true, Running: r[id], Status: "Completed"}, nil
}

// A pass collects the tombstone of each checkpoint it removed once the
// finalization that published it has closed, so the job's keys stay
// bounded by retention and the finalizations still running; a running
// one's tombstone stays (its verify must find it published, I7) and a
// later pass collects it.
func TestCoordinatorCollectsTombstonesOfClosedFinalizations(t *testing.T) {
	f := newFixture(t, 1)
	reqs := map[uint64]contract.FinalizeRequest{}
	for n := uint64(1); n <= 3; n++ {
		reqs[n] = f.publishDirect(n, false)
	}
	running := runningFinalizations{reqs[2].WorkflowID(): true}
	f.acts.Finalizations = running
	f.env.RegisterDelayedCallback(func() {
		f.env.SignalWorkflow(contract.PublishedSignal, contract.PublishedReport{Cluster: "c1", Job: "j1", Epoch: 1, Checkpoint: 3})
	}, time.Second)
	f.env.RegisterDelayedCallback(func() {
		st := f.coordinatorStatus()
		assert.Equal(t, 2, st.Removed)
		assert.Equal(t, []contract.Removal{{Checkpoint: 2, HandleKey: blobstate.Key(reqs[2].CheckpointID(), 1)}}, st.Uncollected)
		assert.True(t, f.entry(1).Absent(), "a closed finalization's tombstone is collected")
		assert.Equal(t, stores.ReasonSubsumed, f.entry(2).Tombstone.Reason, "a running finalization's tombstone stays")

		delete(running, reqs[2].WorkflowID())
		f.publishDirect(4, false)
		f.env.SignalWorkflow(contract.PublishedSignal, contract.PublishedReport{Cluster: "c1", Job: "j1", Epoch: 1, Checkpoint: 4})
	}, time.Minute)
	f.env.RegisterDelayedCallback(func() {
		st := f.coordinatorStatus()
		assert.Equal(t, 3, st.Removed)
		assert.Empty(t, st.Uncollected)
		f.env.CancelWorkflow()
	}, time.Hour)
	f.env.ExecuteWorkflow(contract.CoordinatorWorkflow, contract.CoordinatorState{Cluster: "c1", Job: "j1", Epoch: 1})

	entries, err := f.inner.ListEntries(t.Context(), job)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the retained reference is left: %+v", entries)
	assert.Equal(t, uint64(4), entries[0].Checkpoint)
	st, err := f.inner.ReadJob(t.Context(), job)
	require.NoError(t, err)
	assert.Equal(t, uint64(3), st.Watermark, "the watermark keeps the collected keys unpublishable")
	for _, n := range []uint64{1, 2, 3} {
		assert.False(t, f.exists(fmt.Sprintf("c1/j1/chk-%d/data-0", n)), "checkpoint %d's state discarded", n)
	}
}
