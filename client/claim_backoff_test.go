package client_test

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
)

// stubClaims is a Temporal client on which every claim finds another one
// running and every wait for that one fails, as when the server stops
// answering long polls. It implements only what ClaimEpoch calls; the nil
// embedded client panics on anything else.
type stubClaims struct {
	sdkclient.Client
	starts atomic.Int32
}

func (s *stubClaims) ExecuteWorkflow(context.Context, sdkclient.StartWorkflowOptions, any, ...any) (sdkclient.WorkflowRun, error) {
	s.starts.Add(1)
	return nil, serviceerror.NewWorkflowExecutionAlreadyStarted("claim running", "", "run-1")
}

func (s *stubClaims) GetWorkflow(_ context.Context, id, runID string) sdkclient.WorkflowRun {
	return failingRun{id: id, runID: runID}
}

var errWaitFailed = serviceerror.NewUnavailable("history service unavailable")

// failingRun is a run whose result cannot be had; the nil embedded run
// panics on anything else.
type failingRun struct {
	sdkclient.WorkflowRun
	id, runID string
}

func (r failingRun) GetID() string                  { return r.id }
func (r failingRun) GetRunID() string               { return r.runID }
func (r failingRun) Get(context.Context, any) error { return errWaitFailed }
func (r failingRun) GetWithOptions(context.Context, any, sdkclient.WorkflowRunGetOptions) error {
	return errWaitFailed
}

// A wait on a concurrent claim that fails is retried after a growing
// pause, not at once (which spins against a failing server), and when ctx
// ends the error says so with the wait's own error.
func TestClaimBacksOffWhileWaitingFails(t *testing.T) {
	t.Parallel()
	stub := &stubClaims{}
	c := client.New(stub, client.Options{Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	_, err := c.ClaimEpoch(ctx, contract.ClaimRequest{Cluster: "c1", Job: "j1", Epoch: 1, Owner: "jm-1"})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorIs(t, err, errWaitFailed, "the failed wait is not swallowed")
	assert.ErrorContains(t, err, "claim/c1/j1/1")
	assert.LessOrEqual(t, stub.starts.Load(), int32(10), "backs off between starts instead of spinning")
}
