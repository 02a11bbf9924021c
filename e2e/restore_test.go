package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/storefault"
)

// The recovery read a job manager makes on every failover, on each real
// HA store: the claim answers the newest published checkpoint, and
// LatestCheckpoint answers the same without claiming.
func TestRestorePoint(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Run("none", func(t *testing.T) { restoreNone(t, b) })
			t.Run("after a normal run", func(t *testing.T) { restoreAfterRun(t, b) })
			t.Run("newest dangling", func(t *testing.T) { restoreDangling(t, b) })
			t.Run("failover, publish landed", func(t *testing.T) { restoreFailover(t, b, true) })
			t.Run("failover, publish lost", func(t *testing.T) { restoreFailover(t, b, false) })
		})
	}
}

func restoreNone(t *testing.T, b backend) {
	e := newEnvOn(t, b, 0)
	rp := e.latest()
	assert.Equal(t, contract.RestoreNone, rp.State)
	assert.Zero(t, rp.Epoch, "never claimed")
	rp = e.claim(1)
	assert.Equal(t, contract.RestorePoint{Cluster: e.job.Cluster, Job: e.job.Job, Epoch: 1, State: contract.RestoreNone}, rp)
}

func restoreAfterRun(t *testing.T, b backend) {
	e := newEnvOn(t, b, 2)
	e.claim(1)
	var last contract.FinalizeRequest
	for n := uint64(1); n <= 3; n++ {
		last = e.checkpoint(n, false)
		res, _ := e.finalize(last)
		require.Equal(t, contract.Published, res.Phase)
	}
	rp := e.claim(2)
	require.Equal(t, contract.RestoreResolved, rp.State)
	assert.Equal(t, uint64(2), rp.Epoch)
	want := &contract.RestoreCheckpoint{
		Checkpoint: 3, Epoch: 1, MetadataKey: last.MetadataKey, MetadataSHA256: last.MetadataSHA256,
		ExclusivePrefix: last.ExclusivePrefix, HandleKey: e.handleKey(last),
		RestorePath: "file://" + filepath.ToSlash(e.bucket) + "/" + last.MetadataKey,
	}
	assert.Equal(t, want, rp.Latest)
	assert.Nil(t, rp.Fallback)
	assert.FileExists(t, filepath.Join(e.bucket, filepath.FromSlash(last.MetadataKey)), "the restore path names the metadata file")
	assert.Equal(t, rp, e.latest(), "the read-only answer is the claim's")
	if b.name == onZooKeeper.name {
		claim := contract.ClaimRequest{Cluster: e.job.Cluster, Job: e.job.Job, Epoch: 2}
		record(t, e, "claim-restore-point", e.client.GetWorkflow(e.ctx(), claim.WorkflowID(), ""))
	}
}

func restoreDangling(t *testing.T, b backend) {
	e := newEnvOn(t, b, 0)
	e.claim(1)
	for n := uint64(1); n <= 3; n++ {
		res, _ := e.finalize(e.checkpoint(n, false))
		require.Equal(t, contract.Published, res.Phase)
	}
	// Checkpoint 3's metadata deleted by hand, 2's made to mismatch its checksum.
	require.NoError(t, os.Remove(filepath.Join(e.bucket, e.job.Cluster, e.job.Job, "chk-3", "_metadata")))
	require.NoError(t, os.WriteFile(filepath.Join(e.bucket, e.job.Cluster, e.job.Job, "chk-2", "_metadata"), []byte("edited"), 0o644))

	rp := e.claim(2)
	require.Equal(t, contract.RestoreDangling, rp.State)
	assert.Equal(t, uint64(3), rp.Latest.Checkpoint)
	assert.Equal(t, contract.ProblemDataMissing, rp.Dangling)
	require.NotNil(t, rp.Fallback, "checkpoint 1 still resolves")
	assert.Equal(t, uint64(1), rp.Fallback.Checkpoint)
	assert.Equal(t, rp, e.latest())

	// Nothing resolves: no fallback, the caller decides.
	require.NoError(t, os.Remove(filepath.Join(e.bucket, e.job.Cluster, e.job.Job, "chk-1", "_metadata")))
	rp = e.latest()
	assert.Equal(t, contract.RestoreDangling, rp.State)
	assert.Nil(t, rp.Fallback)
}

// A finalization of the old leader is parked in Verifying (its publish's
// outcome unknown) when the new leader claims. The restore point and the
// finalization's own outcome must agree: a publish that landed is in the
// restore point and ends Published; one that did not is not, and can
// never land after the claim (it ends Discarded).
func restoreFailover(t *testing.T, b backend, landed bool) {
	e := newEnvOn(t, b, 0)
	e.claim(1)
	res, _ := e.finalize(e.checkpoint(1, false))
	require.Equal(t, contract.Published, res.Phase)

	first := storefault.DropRequest
	if landed {
		first = storefault.DropReply
	}
	e.refs.Inject(storefault.OpPublish, first, storefault.DropRequest, storefault.DropRequest)
	release := make(chan struct{})
	e.refs.OnCall(func(op string, _ int) {
		if op == storefault.OpVerify {
			<-release // the verify hangs until the new leader has claimed
		}
	})
	run := e.start(e.checkpoint(2, false))
	e.waitPhase(run, contract.Verifying)

	rp := e.claim(2)
	close(release)
	var out contract.FinalizeResult
	require.NoError(t, run.Get(e.ctx(), &out))

	require.Equal(t, contract.RestoreResolved, rp.State)
	if landed {
		assert.Equal(t, uint64(2), rp.Latest.Checkpoint, "the landed publish is the restore point")
		assert.Equal(t, contract.Published, out.Phase)
	} else {
		assert.Equal(t, uint64(1), rp.Latest.Checkpoint, "the lost publish is not")
		assert.Equal(t, contract.Discarded, out.Phase, "and can never land after the claim")
	}
	assert.Equal(t, rp.Latest.Checkpoint, e.latest().Latest.Checkpoint)
	e.checkInvariants()
}

// latest reads the restore point without claiming, as an operator's tool does.
func (e *env) latest() contract.RestorePoint {
	e.t.Helper()
	req := contract.LatestRequest{Cluster: e.job.Cluster, Job: e.job.Job}
	run, err := e.client.ExecuteWorkflow(e.ctx(), sdkclient.StartWorkflowOptions{
		ID: req.WorkflowID(time.Now().Format("150405.000000000")), TaskQueue: e.taskQueue,
	}, contract.LatestWorkflow, req)
	require.NoError(e.t, err)
	var rp contract.RestorePoint
	require.NoError(e.t, run.Get(e.ctx(), &rp))
	record(e.t, e, "latest-checkpoint", run)
	return rp
}

// waitPhase waits until the finalization's status query answers phase.
func (e *env) waitPhase(run sdkclient.WorkflowRun, phase contract.Phase) {
	e.t.Helper()
	require.Eventually(e.t, func() bool {
		v, err := e.client.QueryWorkflow(e.ctx(), run.GetID(), "", contract.StatusQuery)
		var st contract.Status
		return err == nil && v.Get(&st) == nil && st.Phase == phase
	}, time.Minute, 100*time.Millisecond)
}

func (e *env) handleKey(req contract.FinalizeRequest) string { return activities.HandleOf(req).Key() }
