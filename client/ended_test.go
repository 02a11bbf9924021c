package client_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/e2e/harness"
)

// A finalization terminated before it ended has closed for good: Wait
// answers ErrEnded, with the SDK's TerminatedError reachable, and not the
// error that says nothing (wait again).
func TestWaitTerminatedIsEnded(t *testing.T) {
	t.Parallel()
	env := harness.Start(t, harness.Options{Deferred: true})
	c := newClient(env, client.Options{})
	req := env.Checkpoint(1, 1)
	f, err := c.Finalize(ctx(t), req)
	require.NoError(t, err)
	require.NoError(t, env.Temporal.TerminateWorkflow(ctx(t), f.WorkflowID, f.RunID, "an operator's decision"))

	_, err = f.Wait(ctx(t))
	require.ErrorIs(t, err, client.ErrEnded)
	assert.NotErrorIs(t, err, client.ErrRejected)
	_, terminated := errors.AsType[*temporal.TerminatedError](err)
	assert.True(t, terminated, "%v", err)
}
