package worker

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/storefault"
)

// reconcilerFindings makes the worker's reconciler report each finding
// the alerts of deploy/ watch, on a job of its own: a dangling reference
// (a Published checkpoint whose handle was deleted), an orphan kept (an
// abandoned finalization's state) and an item it could not settle (the
// discard of a terminated finalization's state, whose fence cannot reach
// the store).
// The worker must run with a grace floor of 0, so that state written
// moments ago can be judged.
func reconcilerFindings(ctx context.Context, t *testing.T, d *devWorker, faults *storefault.Store, metricsAddr string) {
	t.Helper()
	claim := contract.ClaimRequest{Cluster: "dev", Job: "job-findings", Epoch: 1, Owner: "jm-1"}
	require.NoError(t, d.execute(ctx, claim.WorkflowID(), contract.ClaimWorkflow, claim).Get(ctx, nil))

	published := writeCheckpoint(t, d.bucket, claim, 1)
	var res contract.FinalizeResult
	require.NoError(t, d.execute(ctx, published.WorkflowID(), contract.FinalizeWorkflow, published).Get(ctx, &res))
	require.Equal(t, contract.Published, res.Phase)
	require.NoError(t, os.Remove(filepath.Join(d.bucket, filepath.FromSlash(res.HandleKey))), "the handle is gone: dangling")

	// Two finalizations parked in Verifying: one abandoned, one terminated.
	faults.SetUnreachable(true)
	abandoned := d.execute(ctx, writeCheckpoint(t, d.bucket, claim, 2).WorkflowID(), contract.FinalizeWorkflow, writeCheckpoint(t, d.bucket, claim, 2))
	terminated := d.execute(ctx, writeCheckpoint(t, d.bucket, claim, 3).WorkflowID(), contract.FinalizeWorkflow, writeCheckpoint(t, d.bucket, claim, 3))
	require.Eventually(t, func() bool {
		g := samples(get(t, "http://"+metricsAddr+"/metrics", 200), MetricVerifying, `older_than="0s"`)
		return len(g) == 1 && g[0] == "2"
	}, 30*time.Second, 100*time.Millisecond, "both in Verifying")
	require.NoError(t, d.client.SignalWorkflow(ctx, abandoned.GetID(), "", contract.AbandonSignal, "kept for the test"))
	require.NoError(t, abandoned.Get(ctx, &res))
	require.Equal(t, contract.Abandoned, res.Phase)
	require.NoError(t, d.client.TerminateWorkflow(ctx, terminated.GetID(), "", "its state becomes an orphan to discard"))
	faults.SetUnreachable(false)

	recon := contract.NewReconcileRequest(claim.Cluster)
	recon.Grace = 0
	var rep contract.ReconcileReport
	require.NoError(t, d.execute(ctx, "reconcile/dev/findings", contract.ReconcileWorkflow, recon).Get(ctx, &rep))
	require.Positive(t, rep.Counts.Dangling, "%+v", rep)
	require.Positive(t, rep.Counts.Kept, "%+v", rep)

	// The terminated finalization's discard cannot fence its key: Unknown
	// after the activity's retries, an error the run reports.
	faults.SetUnreachable(true)
	defer faults.SetUnreachable(false)
	recon.Apply, recon.QuarantineDangling = true, true
	require.NoError(t, d.execute(ctx, "reconcile/dev/errors", contract.ReconcileWorkflow, recon).Get(ctx, &rep))
	require.Positive(t, rep.Counts.Errors, "%+v", rep)
}
