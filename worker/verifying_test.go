package worker

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/storefault"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// A finalization parked in Verifying (the store unreachable) shows in
// finalizer_verifying, read from the dev server's visibility; once the
// store is back and it ends, the gauge falls back to 0.
func TestVerifyingGauge(t *testing.T) {
	d := newDevWorker(t)
	d.cfg.ReconcileMinGrace = 0 // reconcilerFindings judges state written moments ago
	var faults *storefault.Store
	r, _ := d.start(
		WithReferenceStore(func(s stores.ReferenceStore) stores.ReferenceStore {
			faults = storefault.Wrap(s)
			return faults
		}),
		func(o *options) { o.verifying = 200 * time.Millisecond },
	)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
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

	// The standing epoch's checkpoint after its job retired: rejected,
	// then discarded (only the standing epoch decides its directory).
	claim := d.claim(ctx)
	retire := contract.RetireRequest{Cluster: claim.Cluster, Job: claim.Job, Epoch: claim.Epoch, Owner: claim.Owner}
	require.NoError(t, d.execute(ctx, retire.WorkflowID(), contract.RetireWorkflow, retire).Get(ctx, nil))
	late := writeCheckpoint(t, d.bucket, claim, 4)
	require.NoError(t, d.execute(ctx, late.WorkflowID(), contract.FinalizeWorkflow, late).Get(ctx, &res))
	require.Equal(t, contract.Discarded, res.Phase)
	require.NotContains(t, res.Reason, "its data stays")

	// The reconciler's findings the alerts watch.
	reconcilerFindings(ctx, t, d, faults, r.MetricsAddress)

	// What this run exported is what exportedSeries lists, every family
	// has its # HELP, and every selector of the alert rules and the
	// dashboard in deploy/ selects some of it, with the labels it groups by.
	checkScrape(t, get(t, "http://"+r.MetricsAddress+"/metrics", 200))
}
