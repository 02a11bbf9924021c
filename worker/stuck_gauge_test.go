package worker

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// A finalization whose bucket fails retries its persist for ever: it shows
// in finalizer_stuck (any phase), not in finalizer_verifying, and the
// FinalizationStuck alert's expression selects it.
func TestStuckGaugeCountsPersisting(t *testing.T) {
	d := newDevWorker(t)
	r, _ := d.start(func(o *options) { o.verifying = 200 * time.Millisecond })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req := writeCheckpoint(t, d.bucket, d.claim(ctx), 3)
	// The metadata's object becomes a symbolic link to itself: every read
	// fails (ELOOP), an error that says nothing about whether it exists.
	meta := filepath.Join(d.bucket, filepath.FromSlash(req.MetadataKey))
	require.NoError(t, os.Remove(meta))
	require.NoError(t, os.Symlink(meta, meta))
	d.execute(ctx, req.WorkflowID(), contract.FinalizeWorkflow, req)

	var scrape string
	require.Eventually(t, func() bool {
		scrape = get(t, "http://"+r.MetricsAddress+"/metrics", 200)
		g := samples(scrape, MetricStuck, `older_than="0s"`)
		return len(g) == 1 && g[0] == "1"
	}, 30*time.Second, 100*time.Millisecond, "one finalization stuck in Persisting")
	assert.Equal(t, []string{"0"}, samples(scrape, MetricVerifying, `older_than="0s"`), "not Verifying")
}

// A retirement that outlasts its bound (here: on a task queue no worker
// polls, as when its store keeps failing it runs on) shows in
// finalizer_retirements_stuck, not among the finalizations.
func TestStuckGaugeCountsRetirements(t *testing.T) {
	d := newDevWorker(t)
	r, _ := d.start(func(o *options) { o.verifying = 200 * time.Millisecond })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req := contract.RetireRequest{Cluster: "dev", Job: "job-1", Epoch: 1, Owner: "jm-1"}
	_, err := d.client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: req.WorkflowID(), TaskQueue: "nobody-polls"},
		contract.RetireWorkflow, req)
	require.NoError(t, err)

	var scrape string
	require.Eventually(t, func() bool {
		scrape = get(t, "http://"+r.MetricsAddress+"/metrics", 200)
		g := samples(scrape, MetricRetirementsStuck, `older_than="0s"`)
		return len(g) == 1 && g[0] == "1"
	}, 30*time.Second, 100*time.Millisecond, "one retirement stuck")
	assert.Equal(t, []string{"0"}, samples(scrape, MetricStuck, `older_than="0s"`), "not a finalization")
}
