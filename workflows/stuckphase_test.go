package workflows_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// errBucketAway is what failingStates answers while its bucket is away.
var errBucketAway = errors.New("bucket away (injected)")

// failingStates is the fixture's real bucket with switches: while away,
// every call fails as an unreachable bucket does; while discardAway, only
// discards do (a bucket that refuses deletes).
type failingStates struct {
	activities.States
	away, discardAway atomic.Bool
}

func (s *failingStates) fail() error {
	if s.away.Load() {
		return fmt.Errorf("state bucket: %w", errBucketAway)
	}
	return nil
}

func (s *failingStates) CheckData(ctx context.Context, h blobstate.Handle) error {
	if err := s.fail(); err != nil {
		return err
	}
	return s.States.CheckData(ctx, h)
}

func (s *failingStates) Write(ctx context.Context, h blobstate.Handle) (string, error) {
	if err := s.fail(); err != nil {
		return "", err
	}
	return s.States.Write(ctx, h)
}

func (s *failingStates) Keep(ctx context.Context, key, reason string, now time.Time) error {
	if err := s.fail(); err != nil {
		return err
	}
	return s.States.Keep(ctx, key, reason, now)
}

func (s *failingStates) Discard(ctx context.Context, h blobstate.Handle) (blobstate.DiscardResult, error) {
	if err := s.fail(); err != nil {
		return blobstate.DiscardResult{}, err
	}
	if s.discardAway.Load() {
		return blobstate.DiscardResult{}, fmt.Errorf("delete: %w", errBucketAway)
	}
	return s.States.Discard(ctx, h)
}

// failBucket puts failingStates under the fixture's activities. The test
// environment gives up an activity after 10 attempts (its stand-in for
// "without limit"), about 8 min of backoff: the operator acts within that
// (atOperator).
const atOperator = 100 * time.Second

// failBucket puts failingStates under the fixture's activities.
func (f *fixture) failBucket() *failingStates {
	s := &failingStates{States: f.states}
	f.acts.States, f.acts.Handles = s, s
	return s
}

// Stuck means any phase: a finalization whose bucket is away retries its
// persist for ever, and an operator who gives up abandons it there. It ends
// Abandoned, nothing published, and its state, whatever the persist left,
// is marked kept under the key its handle has or would have (the bucket
// answers again only for the mark: the abandon waits for it).
func TestAbandonWhilePersistingKeepsState(t *testing.T) {
	f := newFixture(t, 0)
	s := f.failBucket()
	s.away.Store(true)
	req := f.checkpoint(1, false)
	f.env.RegisterDelayedCallback(func() {
		st := f.status()
		assert.Equal(t, contract.Persisting, st.Phase)
		assert.Contains(t, st.LastError, errBucketAway.Error())
		assert.Contains(t, f.currentDetails(), "signal `abandon`", "the Web UI says what an operator can do")
		f.env.SignalWorkflow(contract.AbandonSignal, "bucket decommissioned")
	}, atOperator)
	f.env.RegisterDelayedCallback(func() { s.away.Store(false) }, 2*atOperator)
	res := f.finalize(req)

	assert.Equal(t, contract.Abandoned, res.Phase)
	assert.Contains(t, res.Reason, "bucket decommissioned")
	assert.Contains(t, res.Reason, "Persisting")
	key := activities.HandleOf(req).Key()
	assert.Equal(t, key, res.HandleKey, "the result names the key its mark keeps")
	assert.True(t, f.entry(1).Absent(), "nothing published")
	assert.True(t, f.exists(req.ExclusivePrefix+"data-0"), "abandoning never discards")
	m, ok, err := f.states.Mark(t.Context(), key)
	require.NoError(t, err)
	assert.True(t, ok, "the state is marked kept under the handle's key")
	assert.Equal(t, "bucket decommissioned", m.Reason)
}

// retry-now reaches a Persisting finalization: its persist, backing off,
// starts again at once.
func TestRetryNowWhilePersisting(t *testing.T) {
	f := newFixture(t, 0)
	s := f.failBucket()
	s.away.Store(true)
	start := f.env.Now()
	f.env.RegisterDelayedCallback(func() {
		require.Equal(t, contract.Persisting, f.status().Phase)
		s.away.Store(false)
		f.env.SignalWorkflow(contract.RetryNowSignal, nil)
	}, atOperator)
	res := f.finalize(f.checkpoint(1, false))

	assert.Equal(t, contract.Published, res.Phase)
	// The persist's tries back off 1 s, 2 s, 4 s, ...: at the signal the
	// next was over 30 s away (the 8th, 5 s + 127 s after the start).
	assert.Less(t, f.env.Now().Sub(start), atOperator+10*time.Second, "persisted at the signal, not at the next backoff")
}

// A discard whose bucket refuses deletes retries for ever in Discarding;
// an operator who abandons it there stops it: what is left stays, marked
// kept, and the result says so.
func TestAbandonWhileDiscardingKeepsWhatIsLeft(t *testing.T) {
	f := newFixture(t, 0)
	s := f.failBucket()
	s.discardAway.Store(true)
	require.NoError(t, f.inner.Subsume(t.Context(), stores.CheckpointID{JobID: job, Checkpoint: 1}, 1)) // rejected: discards
	req := f.checkpoint(1, false)
	f.env.RegisterDelayedCallback(func() {
		st := f.status()
		assert.Equal(t, contract.Discarding, st.Phase)
		assert.Contains(t, f.currentDetails(), "signal `retry-now`")
		f.env.SignalWorkflow(contract.AbandonSignal, "keep it for the post-mortem")
	}, atOperator)
	res := f.finalize(req)

	assert.Equal(t, contract.Abandoned, res.Phase)
	assert.Contains(t, res.Reason, "keep it for the post-mortem")
	assert.Contains(t, res.Reason, "Discarding")
	assert.True(t, f.exists(req.ExclusivePrefix+"data-0"), "the discard stopped: what is left stays")
	assert.True(t, f.exists(res.HandleKey))
	m, ok, err := f.states.Mark(t.Context(), res.HandleKey)
	require.NoError(t, err)
	assert.True(t, ok, "what is left is marked kept")
	assert.Equal(t, "keep it for the post-mortem", m.Reason)
}

// A persist that finds its data missing asks the store whether its token
// was published before it answers Failed; a store that does not answer
// keeps it asking, in Persisting, where abandon reaches it too.
func TestAbandonWhileAskingWhetherPublished(t *testing.T) {
	f := newFixture(t, 0)
	req := f.checkpoint(1, false)
	req.MetadataSHA256 = "0000000000000000000000000000000000000000000000000000000000000000" // data missing
	f.acts.References = unreadable{f.acts.References}
	f.newEnv()
	f.env.RegisterDelayedCallback(func() {
		assert.Equal(t, contract.Persisting, f.status().Phase)
		f.env.SignalWorkflow(contract.AbandonSignal, "store gone")
	}, atOperator)
	start := f.env.Now()
	res := f.finalize(req)

	assert.Equal(t, contract.Abandoned, res.Phase)
	assert.Contains(t, res.Reason, "store gone")
	assert.Less(t, f.env.Now().Sub(start), atOperator+5*time.Second, "ended at the signal")
	m, ok, err := f.states.Mark(t.Context(), res.HandleKey)
	require.NoError(t, err)
	assert.True(t, ok, "marked kept")
	assert.Equal(t, "store gone", m.Reason)
}

// unreadable is a reference store whose reads never get an answer.
type unreadable struct{ activities.References }

func (unreadable) Read(context.Context, stores.CheckpointID) (stores.Entry, error) {
	return stores.Entry{}, fmt.Errorf("read: %w", errStoreAway)
}
