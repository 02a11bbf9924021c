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

// Verifying answers the handle of a Verifying finalization only: ended or
// absent ones are told apart by their errors.
func TestVerifying(t *testing.T) {
	t.Parallel()
	env := harness.Start(t, harness.Options{WrapReferences: func(r activities.References) activities.References {
		return harness.Unanswering{References: r}
	}})
	c := newClient(env, client.Options{})
	claim(t, c, env, 1)
	req := env.Checkpoint(1, 4)
	f, err := c.Finalize(ctx(t), req)
	require.NoError(t, err)

	var got *client.Finalization
	require.Eventually(t, func() bool {
		got, err = c.Verifying(ctx(t), req.WorkflowID())
		return err == nil
	}, 30*time.Second, 100*time.Millisecond, "Verifying once it parks there: %v", err)
	assert.Equal(t, f.RunID, got.RunID)

	require.NoError(t, got.Abandon(ctx(t), "test"))
	_, err = f.Wait(ctx(t))
	require.NoError(t, err)
	_, err = c.Verifying(ctx(t), req.WorkflowID())
	var nv *client.NotVerifyingError
	require.ErrorAs(t, err, &nv)
	assert.ErrorIs(t, err, client.ErrNotVerifying)
	assert.True(t, nv.Closed)
	assert.Equal(t, contract.Abandoned, nv.Phase)

	_, err = c.Verifying(ctx(t), env.Checkpoint(1, 5).WorkflowID())
	assert.ErrorIs(t, err, client.ErrNotFound)
}
