package e2e

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// errBucketAway is what awayStates answers while its bucket is away.
var errBucketAway = errors.New("bucket away (injected)")

// awayStates is the real bucket, failing the handle's checks and writes
// while away is set.
type awayStates struct {
	activities.States
	away *atomic.Bool
}

func (s awayStates) CheckData(ctx context.Context, h blobstate.Handle) error {
	if s.away.Load() {
		return fmt.Errorf("check data: %w", errBucketAway)
	}
	return s.States.CheckData(ctx, h)
}

func (s awayStates) Write(ctx context.Context, h blobstate.Handle) (string, error) {
	if s.away.Load() {
		return "", fmt.Errorf("write handle: %w", errBucketAway)
	}
	return s.States.Write(ctx, h)
}

// persistingRegularly starts a finalization with the bucket away and waits
// until its persist runs as a regular activity (the fast path's local
// tries gave up).
func (e *env) persistingRegularly(req contract.FinalizeRequest) sdkclient.WorkflowRun {
	e.t.Helper()
	e.bucketAway.Store(true)
	run := e.start(req)
	require.Eventually(e.t, func() bool {
		d, err := e.client.DescribeWorkflow(e.ctx(), run.GetID(), "")
		require.NoError(e.t, err)
		for _, p := range d.RawResponse.GetPendingActivities() {
			if p.GetActivityType().GetName() == "PersistHandle" {
				return true
			}
		}
		return false
	}, time.Minute, 100*time.Millisecond, "the persist falls back to a regular activity")
	return run
}

// The persist-fallback path: a bucket away for longer than the fast path's
// local tries, back, and retry-now to not wait for the backoff.
func TestPersistFallback(t *testing.T) {
	e := newEnv(t, 0)
	e.claim(1)
	run := e.persistingRegularly(e.checkpoint(1, false))
	e.bucketAway.Store(false)
	require.NoError(t, e.client.SignalWorkflow(e.ctx(), run.GetID(), "", contract.RetryNowSignal, nil))
	var res contract.FinalizeResult
	require.NoError(t, run.Get(e.ctx(), &res))
	assert.Equal(t, contract.Published, res.Phase)
	e.checkInvariants()
	record(t, e, "finalize-persist-fallback", run)
}

// Abandoned while Persisting: nothing published, the state marked kept
// under the handle's key.
func TestAbandonedWhilePersisting(t *testing.T) {
	e := newEnv(t, 0)
	e.claim(1)
	req := e.checkpoint(1, false)
	run := e.persistingRegularly(req)
	require.NoError(t, e.client.SignalWorkflow(e.ctx(), run.GetID(), "", contract.AbandonSignal, "bucket gone"))
	var res contract.FinalizeResult
	require.NoError(t, run.Get(e.ctx(), &res))
	assert.Equal(t, contract.Abandoned, res.Phase)
	assert.Equal(t, e.handleKey(req), res.HandleKey)
	_, kept, err := e.states.Mark(e.ctx(), res.HandleKey)
	require.NoError(t, err)
	assert.True(t, kept)
	assert.True(t, e.exists(req.ExclusivePrefix+"data-0"))
	record(t, e, "finalize-abandoned-persisting", run)
}
