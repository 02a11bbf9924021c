// Package workflowtest is what the workflow tests of the finalizer
// (workflows) and of the reconciler (workflows/reconcile) share, so that
// both run over the same world: the job they work on, the real embedded
// store (wrapped by storefault to take the caller's knowledge of an
// outcome away) and a real file bucket, the checks of I1 they make, and
// the probe of the heartbeat timeouts activities were scheduled with.
package workflowtest

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/internal/storefault"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/stores/embedded"
)

// Job is the job the workflow tests work on.
var Job = stores.JobID{Cluster: "c1", Job: "j1"}

// World is one test's HA store and state bucket, with Job claimed at
// epoch 1 by "jm-1"; both close when the test ends.
type World struct {
	t *testing.T
	// Inner is the store; Refs wraps it to inject faults.
	Inner  *embedded.Store
	Refs   *storefault.Store
	States *blobstate.Store
	// Bucket writes checkpoints into the bucket States opens.
	Bucket jobmanager.Bucket
}

// NewWorld opens a test's store and bucket in temporary directories.
func NewWorld(t *testing.T) World {
	t.Helper()
	w := World{t: t, Bucket: jobmanager.Bucket{Dir: t.TempDir()}}
	inner, err := embedded.Open(filepath.Join(t.TempDir(), "refs.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = inner.Close() })
	w.Inner, w.Refs = inner, storefault.Wrap(inner)
	require.NoError(t, inner.ClaimEpoch(context.Background(), Job, 1, "jm-1"))
	w.States, err = blobstate.Open(context.Background(), w.Bucket.URL())
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.States.Close() })
	return w
}

// Entry is what checkpoint n's key of Job holds.
func (w World) Entry(n uint64) stores.Entry {
	w.t.Helper()
	e, err := w.Inner.Read(context.Background(), stores.CheckpointID{JobID: Job, Checkpoint: n})
	require.NoError(w.t, err)
	return e
}

// Exists reports whether the bucket holds key.
func (w World) Exists(key string) bool { return w.Bucket.Exists(key) }

// Suite is a test suite whose SDK logger is silenced: the activity errors
// the tests inject would fill the output.
func Suite() *testsuite.WorkflowTestSuite {
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	return &suite
}

// PublishAs writes checkpoint n of an epoch's job manager and publishes it
// the way its finished finalization would: the new leader's checkpoint.
func PublishAs(t *testing.T, bucket jobmanager.Bucket, states *blobstate.Store, refs stores.ReferenceStore, epoch, n uint64) contract.FinalizeRequest {
	t.Helper()
	req, err := bucket.WriteCheckpoint(Job, epoch, n, false)
	require.NoError(t, err)
	key, err := states.Write(t.Context(), activities.HandleOf(req))
	require.NoError(t, err)
	require.NoError(t, refs.Publish(t.Context(), stores.Publication{
		CheckpointID: req.CheckpointID(), Epoch: epoch,
		Reference: stores.Reference{Handle: key, Token: req.Token(), Attempt: 1},
	}))
	return req
}

// Resolves asserts that a published checkpoint's handle, metadata and data
// are all there (I1).
func Resolves(t *testing.T, exists func(string) bool, req contract.FinalizeRequest) {
	t.Helper()
	assert.True(t, exists(activities.HandleOf(req).Key()), "handle of epoch %d checkpoint %d", req.Epoch, req.Checkpoint)
	assert.True(t, exists(req.MetadataKey), "metadata of epoch %d checkpoint %d", req.Epoch, req.Checkpoint)
	assert.True(t, exists(jobmanager.DataKey(Job, req.Checkpoint)), "data of epoch %d checkpoint %d", req.Epoch, req.Checkpoint)
}

// Heartbeats records the heartbeat timeout each activity type was
// scheduled with.
type Heartbeats struct {
	mu   sync.Mutex
	seen map[string]time.Duration
}

// WatchHeartbeats records the activities env starts from now on.
func WatchHeartbeats(env *testsuite.TestWorkflowEnvironment) *Heartbeats {
	h := &Heartbeats{seen: map[string]time.Duration{}}
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.seen[info.ActivityType.Name] = info.HeartbeatTimeout
	})
	return h
}

// Timeout is the heartbeat timeout activity was scheduled with; false if
// it never ran.
func (h *Heartbeats) Timeout(activity string) (time.Duration, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	d, ok := h.seen[activity]
	return d, ok
}
