package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// The reconciler on a real worker, applied, over a job with one published
// checkpoint and one handle nothing references (its finalization, stuck in
// Verifying on an unreachable store, was terminated by an operator): the
// orphan is fenced and discarded, the published checkpoint kept. Its
// history is the reconciler's in the replay test.
func TestReconcilerDiscardsAnOrphanAndKeepsThePublished(t *testing.T) {
	e := newEnv(t, 0)
	e.claim(1)
	published := e.checkpoint(1, false)
	res, _ := e.finalize(published)
	require.Equal(t, contract.Published, res.Phase)
	orphan := e.checkpoint(2, false)
	e.refs.SetUnreachable(true)
	stuck := e.start(orphan)
	e.waitPhase(stuck, contract.Verifying)
	require.NoError(t, e.client.TerminateWorkflow(e.ctx(), stuck.GetID(), "", "operator gave up on it"))
	e.refs.SetUnreachable(false)

	req := contract.ReconcileRequest{Cluster: e.job.Cluster, Apply: true, TombstoneTTL: contract.Duration(contract.MinTombstoneTTL)}
	run, err := e.client.ExecuteWorkflow(e.ctx(), sdkclient.StartWorkflowOptions{
		ID: fmt.Sprintf("%s/reconcile-%d", e.job.Job, time.Now().UnixNano()), TaskQueue: e.taskQueue,
	}, contract.ReconcileWorkflow, req)
	require.NoError(t, err)
	var rep contract.ReconcileReport
	require.NoError(t, run.Get(e.ctx(), &rep))
	t.Logf("report: %+v", rep)
	assert.Empty(t, rep.Errors)
	assert.Equal(t, 1, rep.Counts.References)
	assert.Len(t, rep.Discarded, 1)
	assert.False(t, e.exists(orphan.ExclusivePrefix+"data-0"), "the orphan's data is discarded")
	assert.False(t, e.exists(orphan.MetadataKey), "the orphan's metadata is discarded")
	assert.True(t, e.exists(published.ExclusivePrefix+"data-0"), "the published checkpoint is kept")
	e.checkInvariants()
	record(t, e, "reconcile-orphan-discarded", run)
}
