package client

import (
	"log/slog"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// Options configure a Client. The zero value works with a worker on
// contract.DefaultTaskQueue.
type Options struct {
	// TaskQueue the finalizer's workers poll. Empty: contract.DefaultTaskQueue.
	TaskQueue string
	// EagerStart asks the server to hand a new finalization's first
	// workflow task straight back to a worker in this process, saving a
	// round trip through the task queue (~10-30 ms). It only helps when a
	// worker built on the same client.Client runs here; otherwise the
	// server dispatches as usual.
	EagerStart bool
	// DataConverter must be the one the client.Client was dialled with, to
	// read memos. Empty: the SDK's default.
	DataConverter converter.DataConverter
	// Logger receives diagnostics (progress polls that failed, ...). Empty:
	// slog.Default().
	Logger *slog.Logger
}

// Client triggers and observes finalizations over a Temporal client. It is
// safe for concurrent use; it does not own the Temporal client.
type Client struct {
	tc        client.Client
	taskQueue string
	eager     bool
	dc        converter.DataConverter
	log       *slog.Logger
}

// New returns a Client over c. c is the caller's own, dialled with its
// own client.Options (or Connection.Dial's base options): interceptors
// there apply to every call. With the SDK's tracing interceptor
// (go.temporal.io/sdk/contrib/opentelemetry NewTracingInterceptor) a
// trigger's StartWorkflow span, child of the span in ctx, parents the
// worker's spans when the worker traces too (-otlp-endpoint).
func New(c client.Client, opts Options) *Client {
	cl := &Client{tc: c, taskQueue: opts.TaskQueue, eager: opts.EagerStart, dc: opts.DataConverter, log: opts.Logger}
	if cl.taskQueue == "" {
		cl.taskQueue = contract.DefaultTaskQueue
	}
	if cl.dc == nil {
		cl.dc = converter.GetDefaultDataConverter()
	}
	if cl.log == nil {
		cl.log = slog.Default()
	}
	return cl
}

// TaskQueue is the task queue the client starts workflows on.
func (c *Client) TaskQueue() string { return c.taskQueue }
