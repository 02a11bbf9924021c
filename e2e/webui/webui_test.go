package webui

import (
	"context"
	"log/slog"
	"net/url"
	"os"
	"path"
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
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/storefault"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/cachedir"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/debian"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/devserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/temporaltest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/tools/topology"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

const chromium = "/usr/bin/chromium"

// A finalization parked in Verifying (its store unreachable), as an
// operator sees it in the Web UI (2.42.1), in front of the dev server and
// in front of the production topology's PostgreSQL-backed Temporal server
// (the UI server beside its frontend, as `scripts/topology.sh up` runs it):
//
//   - the list, filtered on the stuck ones with the columns an operator adds
//     once, shows it in Verifying with what its static summary says (the
//     cluster, job, epoch and checkpoint columns, and the store). The summary
//     text itself cannot be in this UI version's list: the list's call
//     (ListWorkflowExecutions) returns no user metadata, and the column
//     chooser offers no Summary column, only the execution's fields and
//     the search attributes;
//   - its page's User Metadata tab shows the static summary, and the
//     current details (workflow.SetCurrentDetails, rendered in the UI's
//     markdown frames): the phase and since when, the attempts and
//     verifications, the last error and what an operator can do;
//   - its search attributes show the phase and the store.
//
// The screenshots are kept in cachedir.Artifacts()/webui/<server>
// (list.jpg, page.jpg), outside the repository, replaced on each run; the
// test logs where.
func TestWebUIShowsAStuckFinalization(t *testing.T) {
	t.Run("dev-server", func(t *testing.T) {
		srv := temporaltest.Start(t, devserver.Options{UI: true, SearchAttributes: contract.SearchAttributes()})
		showsAStuckFinalization(t, srv.HostPort, srv.UIAddress)
	})
	t.Run("production-topology", func(t *testing.T) {
		realserver.Require(t, "temporal-server on PostgreSQL and the Web UI server")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		// The postgres user reaches its cluster through this folder, which
		// MkdirTemp creates private.
		dir, err := os.MkdirTemp("", "webui-topology-")
		require.NoError(t, err)
		require.NoError(t, os.Chmod(dir, 0o755))
		tp, err := topology.Up(ctx, topology.Options{Dir: filepath.Join(dir, "topology"), TemporalOnly: true, Progress: logWriter{t}})
		require.NoError(t, err)
		t.Cleanup(func() {
			require.NoError(t, tp.Down())
			assert.Zero(t, tp.UIPID(), "down stops the UI server")
			_ = os.RemoveAll(dir)
		})
		require.NotZero(t, tp.UIPID())
		showsAStuckFinalization(t, tp.Temporal.Frontend, tp.UI.URL)
	})
}

// logWriter sends progress lines to the test log.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// showsAStuckFinalization parks a finalization of a worker of its own in
// Verifying on the Temporal server at hostPort (namespace default, the
// search attributes registered) and reads it in the Web UI at uiURL.
func showsAStuckFinalization(t *testing.T, hostPort, uiURL string) {
	require.NoError(t, debian.Ensure(func() bool { _, err := os.Stat(chromium); return err == nil }, "chromium"))
	require.NotEmpty(t, uiURL)
	shots := filepath.Join(cachedir.Artifacts(), "webui", path.Base(t.Name()))
	require.NoError(t, os.MkdirAll(shots, 0o755))

	dir := t.TempDir()
	cfg := worker.DefaultConfig()
	cfg.Temporal.Address = hostPort
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

	tc, err := sdkclient.Dial(sdkclient.Options{HostPort: hostPort, Logger: sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
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
	var st contract.Status
	require.Eventually(t, func() bool {
		st, err = f.Status(ctx)
		return err == nil && st.Phase == contract.Verifying && st.Verifications > 0
	}, time.Minute, 100*time.Millisecond)

	browser := newBrowser(t, ctx)
	// The list: the columns an operator adds once (the UI keeps them in
	// the browser's localStorage), filtered on the stuck ones.
	_, err = chromedp.Run(browser, chromedp.Navigate(uiURL))
	require.NoError(t, err)
	columns := `{"default":[{"label":"Status","pinned":true},{"label":"Workflow ID","pinned":true},` +
		`{"label":"FinalizationPhase","pinned":false},{"label":"PhaseSince","pinned":false},` +
		`{"label":"CheckpointCluster","pinned":false},{"label":"CheckpointJob","pinned":false},` +
		`{"label":"CheckpointEpoch","pinned":false},{"label":"CheckpointID","pinned":false},` +
		`{"label":"StoreKind","pinned":false},{"label":"Start","pinned":false}]}`
	_, err = chromedp.Run(browser, chromedp.Evaluate[any](`localStorage.setItem("namespace-workflow-table-columns", `+strconv.Quote(columns)+`)`))
	require.NoError(t, err)
	list := uiURL + "/namespaces/default/workflows?query=" + url.QueryEscape(`FinalizationPhase="Verifying"`)
	open(t, browser, list)
	text := waitText(t, browser, `document.body.innerText`, f.WorkflowID)
	screenshot(t, browser, shots, "list", list)
	assert.Contains(t, text, f.WorkflowID, "the stuck finalization is listed")
	assert.NotContains(t, text, "claim/", "and only the stuck ones")
	row := rowOf(text, f.WorkflowID)
	// The summary's fields, each in its column: "checkpoint 42 of
	// prod-eu/0a1b... (epoch 3)", on the embedded store.
	for _, want := range []string{"Verifying", job.Cluster, job.Job, "\t3\t", "\t42\t", "embedded"} {
		assert.Contains(t, row, want, "the list's row shows %q", want)
	}
	for _, header := range []string{"FinalizationPhase", "CheckpointCluster", "CheckpointJob", "CheckpointEpoch", "CheckpointID", "StoreKind"} {
		assert.Contains(t, text, header, "with the %s column", header)
	}

	// Its page, the User Metadata tab: the summary and the details are
	// markdown the UI renders in frames of its own origin; their text is
	// read from inside the frames.
	summary := contract.Summary(req) // "checkpoint 42 of prod-eu/0a1b... (epoch 3)"
	page := uiURL + "/namespaces/default/workflows/" + url.PathEscape(f.WorkflowID) + "/" + f.RunID + "/user-metadata"
	open(t, browser, page)
	frames := `Array.from(document.querySelectorAll('iframe')).map(f => f.contentDocument && f.contentDocument.body ? f.contentDocument.body.innerText : '').join('\n----\n')`
	details := waitText(t, browser, frames, "Verifying")
	pageText := waitText(t, browser, `document.body.innerText`, "Current Details")
	screenshot(t, browser, shots, "page", page)
	assert.Contains(t, pageText, "Summary")
	assert.Contains(t, pageText, "Current Details")
	assert.Contains(t, details, summary, "the page shows the static summary")
	assert.Contains(t, details, "Verifying since "+st.PhaseSince.UTC().Format(time.RFC3339), "the phase and since when")
	assert.Regexp(t, `publish attempts: 1, verifications: \d+, fences: 0`, details, "the attempts and verifications")
	assert.Contains(t, details, "store: embedded")
	assert.Contains(t, details, "last error: publish: outcome unknown", "the last error")
	assert.Contains(t, details, "Fix the store, then signal retry-now", "what an operator can do")
	assert.Contains(t, details, "signal abandon with a reason")
	assert.Contains(t, details, "must not acknowledge the checkpoint")

	// Its search attributes: the phase and the store.
	attrs := uiURL + "/namespaces/default/workflows/" + url.PathEscape(f.WorkflowID) + "/" + f.RunID + "/search-attributes"
	open(t, browser, attrs)
	text = waitText(t, browser, `document.body.innerText`, `"FinalizationPhase"`)
	assert.Contains(t, text, `"FinalizationPhase": "Verifying"`, "the phase")
	assert.Contains(t, text, `"StoreKind": "embedded"`, "and the store")
}

// rowOf is the line of the list's text that names id (the table's row,
// its cells separated by tabs), or "" when none does.
func rowOf(text, id string) string {
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, id) && strings.Count(line, "\t") > 2 {
			return line + "\t"
		}
	}
	return ""
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

func open(t *testing.T, browser context.Context, url string) {
	t.Helper()
	_, err := chromedp.Run(browser, chromedp.Navigate(url))
	require.NoError(t, err)
}

// waitText evaluates js (a string expression over the page) until its
// value contains want (the UI renders after its own requests), and
// returns the last value.
func waitText(t *testing.T, browser context.Context, js, want string) string {
	t.Helper()
	var text string
	deadline := time.Now().Add(45 * time.Second)
	for time.Now().Before(deadline) {
		var err error
		text, err = chromedp.Run(browser, chromedp.Evaluate[string](js))
		require.NoError(t, err)
		if strings.Contains(text, want) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	return text
}

// screenshot keeps the page as dir/name.jpg and logs where.
func screenshot(t *testing.T, browser context.Context, dir, name, url string) {
	t.Helper()
	shot, err := chromedp.Run(browser, chromedp.FullScreenshot(90)) // a JPEG at quality 90
	require.NoError(t, err)
	path := filepath.Join(dir, name+".jpg")
	require.NoError(t, os.WriteFile(path, shot, 0o644))
	t.Logf("screenshot of %s: %s", url, path)
}
