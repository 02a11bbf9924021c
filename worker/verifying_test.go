package worker

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/storefault"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// A finalization parked in Verifying (the store unreachable) shows in
// finalizer_verifying, read from the dev server's visibility; once the
// store is back and it ends, the gauge falls back to 0.
func TestVerifyingGauge(t *testing.T) {
	d := newDevWorker(t)
	var faults *storefault.Store
	r, _ := d.start(
		WithReferenceStore(func(s stores.ReferenceStore) stores.ReferenceStore {
			faults = storefault.Wrap(s)
			return faults
		}),
		func(o *options) { o.verifying = 200 * time.Millisecond },
	)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req := writeCheckpoint(t, d.bucket, d.claim(ctx), 3)
	faults.SetUnreachable(true)
	run := d.execute(ctx, req.WorkflowID(), contract.FinalizeWorkflow, req)

	gauge := func() []string {
		return samples(get(t, "http://"+r.MetricsAddress+"/metrics", 200), "finalizer_verifying", `older_than="0s"`)
	}
	require.Eventually(t, func() bool {
		g := gauge()
		return len(g) == 1 && g[0] == "1"
	}, 30*time.Second, 100*time.Millisecond, "one finalization in Verifying")

	faults.SetUnreachable(false)
	require.NoError(t, d.client.SignalWorkflow(ctx, run.GetID(), "", contract.RetryNowSignal, nil))
	var res contract.FinalizeResult
	require.NoError(t, run.Get(ctx, &res))
	require.Eventually(t, func() bool {
		g := gauge()
		return len(g) == 1 && g[0] == "0"
	}, 30*time.Second, 100*time.Millisecond, "none left")

	// A deposed leader's checkpoint: rejected, then discarded.
	deposed := writeCheckpoint(t, d.bucket, d.claim(ctx), 4)
	next := contract.ClaimRequest{Cluster: deposed.Cluster, Job: deposed.Job, Epoch: 2, Owner: "jm-2"}
	require.NoError(t, d.execute(ctx, next.WorkflowID(), contract.ClaimWorkflow, next).Get(ctx, nil))
	require.NoError(t, d.execute(ctx, deposed.WorkflowID(), contract.FinalizeWorkflow, deposed).Get(ctx, &res))
	require.Equal(t, contract.Discarded, res.Phase)

	// What this run exported is what exportedSeries lists, and every
	// selector of the alert rules and the dashboard in deploy/ selects some of it.
	checkScrape(t, get(t, "http://"+r.MetricsAddress+"/metrics", 200))
}
