package client_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/e2e/harness"
)

// A caller that knows only the identity: Status and Attach.
func TestStatusAndAttachByIdentity(t *testing.T) {
	t.Parallel()
	env := harness.Start(t, harness.Options{})
	c := newClient(env, client.Options{})
	claim(t, c, env, 1)
	req := env.Checkpoint(1, 9)
	f, err := c.Finalize(ctx(t), req)
	require.NoError(t, err)
	want, err := f.Wait(ctx(t))
	require.NoError(t, err)

	st, err := c.Status(ctx(t), env.Cluster, env.Job, 1, 9)
	require.NoError(t, err)
	assert.Equal(t, contract.Published, st.Phase)
	assert.Equal(t, uint32(1), st.Attempts)
	assert.Equal(t, want.HandleKey, st.HandleKey)
	assert.Contains(t, st.Timings, contract.Persisting)

	attached, err := c.Attach(ctx(t), env.Cluster, env.Job, 1, 9)
	require.NoError(t, err)
	assert.Equal(t, f.RunID, attached.RunID)
	got, err := attached.Wait(ctx(t))
	require.NoError(t, err)
	assert.Equal(t, want, got)

	_, err = c.Status(ctx(t), env.Cluster, env.Job, 1, 10)
	assert.ErrorIs(t, err, client.ErrNotFound)
	_, err = c.Attach(ctx(t), env.Cluster, env.Job, 2, 9)
	assert.ErrorIs(t, err, client.ErrNotFound)
}

// WaitProgress reports each change (here: into Verifying, then every
// verification) and returns the result.
func TestWaitProgressReportsChanges(t *testing.T) {
	t.Parallel()
	env := harness.Start(t, harness.Options{WrapReferences: func(r activities.References) activities.References {
		return harness.Unanswering{References: r}
	}})
	c := newClient(env, client.Options{})
	claim(t, c, env, 1)
	f, err := c.Finalize(ctx(t), env.Checkpoint(1, 2))
	require.NoError(t, err)

	var (
		mu   sync.Mutex
		seen []contract.Status
	)
	verifying, second := make(chan struct{}), make(chan struct{})
	var onceVerifying, onceSecond sync.Once
	go func() {
		<-verifying
		// Retry-now starts the next verify at once: one more report.
		assert.NoError(t, f.RetryNow(ctx(t)))
		<-second
		assert.NoError(t, f.Abandon(ctx(t), "test over"))
	}()
	res, err := f.WaitProgress(ctx(t), 50*time.Millisecond, func(st contract.Status) {
		mu.Lock()
		seen = append(seen, st)
		mu.Unlock()
		if st.Phase == contract.Verifying {
			onceVerifying.Do(func() { close(verifying) })
		}
		if st.Verifications >= 2 {
			onceSecond.Do(func() { close(second) })
		}
	})
	require.NoError(t, err)
	assert.Equal(t, contract.Abandoned, res.Phase)

	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, seen)
	verifications := 0
	for i, st := range seen {
		if i > 0 {
			assert.NotEqual(t, progressOf(seen[i-1]), progressOf(st), "report %d repeats the one before", i)
		}
		verifications = max(verifications, st.Verifications)
	}
	assert.GreaterOrEqual(t, verifications, 2, "retry-now started a second verify: %+v", seen)
}

// progressOf is what a progress report is about.
func progressOf(st contract.Status) [5]any {
	return [5]any{st.Phase, st.Attempts, st.Verifications, st.Fences, st.LastError}
}
