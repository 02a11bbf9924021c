package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/e2e/harness"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
)

// newClient builds the client under test over the env's Temporal client and
// task queue.
func newClient(env *harness.Env, opts client.Options) *client.Client {
	opts.TaskQueue = env.TaskQueue
	return client.New(env.Temporal, opts)
}

// claim claims epoch for the env's job, as a job manager does first.
func claim(t *testing.T, c *client.Client, env *harness.Env, epoch uint64) {
	t.Helper()
	_, err := c.ClaimEpoch(ctx(t), contract.ClaimRequest{Cluster: env.Cluster, Job: env.Job, Epoch: epoch, Owner: jobmanager.Owner(epoch)})
	require.NoError(t, err)
}

// ctx bounds one test's calls: a hung server fails the test instead of
// the whole binary's timeout.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return c
}
