package webuitest

import (
	"context"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkclient "go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/debian"
	"github.com/checkpoint-finalizer/finalizer/internal/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/internal/storefault"
	"github.com/checkpoint-finalizer/finalizer/internal/temporaltest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/worker"
	"github.com/checkpoint-finalizer/finalizer/worker/devserver"
)

const chromium = "/usr/bin/chromium"

// A finalization parked in Verifying (its store unreachable): the Web UI's
// list, filtered on the stuck ones with the columns an operator adds,
// shows it in Verifying, and its page its summary, phase and store. The screenshots are test artifacts
// (go test -artifacts keeps them).
func TestWebUIShowsAStuckFinalization(t *testing.T) {
	srv := temporaltest.Start(t, devserver.Options{UI: true, SearchAttributes: contract.SearchAttributes()})
	require.NoError(t, debian.Ensure(func() bool { _, err := os.Stat(chromium); return err == nil }, "chromium"))
	require.NotEmpty(t, srv.UIAddress)

	dir := t.TempDir()
	cfg := worker.DefaultConfig()
	cfg.Temporal.Address = srv.HostPort
	cfg.Store.Embedded.Path = filepath.Join(dir, "refs.db")
	cfg.StateBucket = "file://" + filepath.Join(dir, "bucket") + "?create_dir=true"
	cfg.MetricsAddress = ""
	var faults *storefault.Store
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() {
		done <- worker.Run(runCtx, cfg, slog.New(slog.DiscardHandler),
			worker.WithReferenceStore(func(s stores.ReferenceStore) stores.ReferenceStore {
				faults = storefault.Wrap(s)
				return faults
			}),
			worker.WithReady(func(worker.Ready) { close(ready) }))
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("worker: %v", err)
	}
	t.Cleanup(func() { stop(); <-done })

	tc, err := sdkclient.Dial(sdkclient.Options{HostPort: srv.HostPort, Logger: sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	require.NoError(t, err)
	defer tc.Close()
	c := client.New(tc, client.Options{})
	job := stores.JobID{Cluster: "prod-eu", Job: "0a1b2c3d4e5f60718293a4b5c6d7e8f9"}
	_, err = c.ClaimEpoch(ctx, contract.ClaimRequest{Cluster: job.Cluster, Job: job.Job, Epoch: 3, Owner: "jm-3"})
	require.NoError(t, err)
	req, err := jobmanager.Bucket{Dir: filepath.Join(dir, "bucket")}.WriteCheckpoint(job, 3, 42, false)
	require.NoError(t, err)
	faults.SetUnreachable(true)
	f, err := c.Finalize(ctx, req)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		st, err := f.Status(ctx)
		return err == nil && st.Phase == contract.Verifying
	}, time.Minute, 100*time.Millisecond)

	browser := newBrowser(t, ctx)
	// The list: the columns an operator adds once (the UI keeps them in
	// the browser's localStorage), filtered on the stuck ones.
	_, err = chromedp.Run(browser, chromedp.Navigate(srv.UIAddress))
	require.NoError(t, err)
	columns := `{"default":[{"label":"Status","pinned":true},{"label":"Workflow ID","pinned":true},` +
		`{"label":"FinalizationPhase","pinned":false},{"label":"PhaseSince","pinned":false},{"label":"StoreKind","pinned":false},{"label":"Start","pinned":false}]}`
	_, err = chromedp.Run(browser, chromedp.Evaluate[any](`localStorage.setItem("namespace-workflow-table-columns", `+strconv.Quote(columns)+`)`))
	require.NoError(t, err)
	list := srv.UIAddress + "/namespaces/default/workflows?query=" + url.QueryEscape(`FinalizationPhase="Verifying"`)
	text := pageText(t, browser, list, f.WorkflowID, "list")
	assert.Contains(t, text, f.WorkflowID, "the stuck finalization is listed")
	assert.Contains(t, text, "FinalizationPhase", "with the phase column")
	assert.Contains(t, text, "Verifying")
	assert.NotContains(t, text, "claim/", "and only the stuck ones")

	// Its page (the metadata tab): the static summary the client set at
	// start, and the phase and identity from the search attributes. The
	// current details (workflow.SetCurrentDetails) are checked through the
	// metadata query in workflows/details_test.go: this UI version shows
	// them only in a collapsed section.
	summary := contract.Summary(req) // "checkpoint 42 of prod-eu/0a1b... (epoch 3)"
	page := srv.UIAddress + "/namespaces/default/workflows/" + url.PathEscape(f.WorkflowID) + "/" + f.RunID + "/metadata"
	text = pageText(t, browser, page, summary, "page")
	assert.Contains(t, text, summary, "the page shows the summary")
	assert.Contains(t, text, `"FinalizationPhase": "Verifying"`, "and the phase")
	assert.Contains(t, text, `"StoreKind": "embedded"`, "and the store")
}

// newBrowser starts headless Chromium with the flags this closed network
// needs (no background connections that would be refused).
func newBrowser(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1600, 1000))
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	browser, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(cancelBrowser)
	return browser
}

// pageText opens url and waits until the page's text shows want (the UI
// renders after its own requests), keeps a screenshot named name, and
// returns the text.
func pageText(t *testing.T, browser context.Context, url, want, name string) string {
	t.Helper()
	_, err := chromedp.Run(browser, chromedp.Navigate(url))
	require.NoError(t, err)
	var text string
	deadline := time.Now().Add(45 * time.Second)
	for time.Now().Before(deadline) {
		text, err = chromedp.Run(browser, chromedp.Text(chromedp.CSS("body")))
		require.NoError(t, err)
		if strings.Contains(text, want) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	shot, err := chromedp.Run(browser, chromedp.FullScreenshot(90)) // a JPEG at quality 90
	require.NoError(t, err)
	path := filepath.Join(t.ArtifactDir(), name+".jpg")
	require.NoError(t, os.WriteFile(path, shot, 0o644))
	t.Logf("screenshot of %s: %s", url, path)
	return text
}
