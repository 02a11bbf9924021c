package harness

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/checkpoint-finalizer/finalizer/activities"
	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/stores/embedded"
	finalizer "github.com/checkpoint-finalizer/finalizer/worker"
)

// Options shape one test's environment.
type Options struct {
	// WrapReferences, when set, wraps the store the activities publish and
	// verify through (to inject failures), the reconciler's fences
	// included; claims, retirements and the reconciler's inventory always
	// reach the real store.
	WrapReferences func(activities.References) activities.References
	// WrapStates, when set, wraps the state bucket the finalizations'
	// activities persist, check and discard through (to inject failures).
	WrapStates func(activities.States) activities.States
	// Deferred: StartWorker is left to the test (e.g. to trigger twice
	// while the first execution waits for a worker).
	Deferred bool
}

// Env is one test's worker, stores and names.
type Env struct {
	t *testing.T
	// Temporal is dialled for this test; the worker runs on it, so a
	// client.Client built on it may start eagerly.
	Temporal  client.Client
	TaskQueue string
	// Cluster is unique to the test (and to the run: -count=2 reuses the
	// server); Job is "j1".
	Cluster, Job string
	Store        *embedded.Store
	States       *blobstate.Store
	// Bucket is the file bucket's folder; BucketURL opens it.
	Bucket, BucketURL string
	worker            worker.Worker
}

// Start dials the server and, unless opts.Deferred, starts the worker.
func Start(t *testing.T, opts Options) *Env {
	t.Helper()
	hostPort := HostPort(t)
	suffix := randomHex(t, 4)
	e := &Env{
		t:         t,
		TaskQueue: "test-" + suffix,
		Cluster:   "c-" + suffix,
		Job:       "j1",
		Bucket:    t.TempDir(),
	}
	e.BucketURL = "file://" + e.Bucket

	var err error
	e.Temporal, err = client.Dial(client.Options{HostPort: hostPort, Namespace: Namespace(), Logger: SDKLogger()})
	require.NoError(t, err)
	t.Cleanup(e.Temporal.Close)

	e.Store, err = embedded.Open(filepath.Join(t.TempDir(), "refs.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Store.Close() })
	e.States, err = blobstate.Open(context.Background(), e.BucketURL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.States.Close() })

	var refs activities.References = e.Store
	if opts.WrapReferences != nil {
		refs = opts.WrapReferences(refs)
	}
	var states activities.States = e.States
	if opts.WrapStates != nil {
		states = opts.WrapStates(states)
	}
	// The production assembly, tenant gate and interceptors included.
	a := finalizer.Assemble(finalizer.Parts{
		Store: e.Store, References: refs, Bucket: e.States, States: states, StoreKind: "embedded",
		Temporal: e.Temporal, TaskQueue: e.TaskQueue,
		// The tests' handles and tombstones are seconds old: no grace
		// floor, the contract's shortest TTL.
		Floors: reconcileacts.Floors{TombstoneTTL: contract.MinTombstoneTTL},
	})
	e.worker = worker.New(e.Temporal, e.TaskQueue, a.Options(worker.Options{}))
	a.Register(e.worker)
	if !opts.Deferred {
		e.StartWorker()
	}
	return e
}

// StartWorker starts the worker; it stops when the test ends.
func (e *Env) StartWorker() {
	e.t.Helper()
	require.NoError(e.t, e.worker.Start())
	e.t.Cleanup(e.worker.Stop)
}

// SDKLogger keeps the SDK quiet: the failures tests inject would fill the
// output. FINALIZER_TEST_VERBOSE=1 shows its warnings.
func SDKLogger() sdklog.Logger {
	var w io.Writer = io.Discard
	if os.Getenv("FINALIZER_TEST_VERBOSE") != "" {
		w = os.Stderr
	}
	return sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn})))
}

func randomHex(t *testing.T, n int) string {
	b := make([]byte, n)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return strings.ToLower(hex.EncodeToString(b))
}
