package client_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/e2e/harness"
)

// Signalable answers the handle of a finalization stuck in a phase that
// reads operator signals (here Verifying): ended or absent ones are told
// apart by their errors.
func TestSignalable(t *testing.T) {
	t.Parallel()
	env := harness.Start(t, harness.Options{WrapReferences: func(r activities.References) activities.References {
		return harness.Unanswering{References: r}
	}})
	c := newClient(env, client.Options{})
	claim(t, c, env, 1)
	req := env.Checkpoint(1, 4)
	f, err := c.Finalize(ctx(t), req)
	require.NoError(t, err)

	var (
		got   *client.Finalization
		phase contract.Phase
	)
	require.Eventually(t, func() bool {
		got, phase, err = c.Signalable(ctx(t), req.WorkflowID())
		return err == nil && phase == contract.Verifying
	}, 30*time.Second, 100*time.Millisecond, "Verifying once it parks there: %v", err)
	assert.Equal(t, f.RunID, got.RunID)

	require.NoError(t, got.Abandon(ctx(t), "test"))
	_, err = f.Wait(ctx(t))
	require.NoError(t, err)
	_, _, err = c.Signalable(ctx(t), req.WorkflowID())
	var nv *client.NotSignalableError
	require.ErrorAs(t, err, &nv)
	assert.ErrorIs(t, err, client.ErrNotSignalable)
	assert.True(t, nv.Closed)
	assert.Equal(t, contract.Abandoned, nv.Phase)

	_, _, err = c.Signalable(ctx(t), env.Checkpoint(1, 5).WorkflowID())
	assert.ErrorIs(t, err, client.ErrNotFound)
}
