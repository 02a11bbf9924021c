package worker

import (
	"time"

	"go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Option changes how Run wires the worker.
type Option func(*options)

type options struct {
	wrapReferences func(stores.ReferenceStore) stores.ReferenceStore
	ready          func(Ready)
	// verifying: how often MetricVerifying is read; 0 is verifyingEvery.
	verifying time.Duration
}

func (o options) verifyingEvery() time.Duration {
	if o.verifying > 0 {
		return o.verifying
	}
	return verifyingEvery
}

// WithReferenceStore wraps the HA reference store the finalizer's
// activities and the reconciler's fences use, for instance to inject
// ambiguous failures in the dev mode; the reconciler's inventory reads the
// store Run opened. Run still closes that store itself, after the worker
// has stopped.
func WithReferenceStore(wrap func(stores.ReferenceStore) stores.ReferenceStore) Option {
	return func(o *options) { o.wrapReferences = wrap }
}

// Ready describes a worker that has started polling.
type Ready struct {
	// Client is the worker's Temporal client; it is closed when Run returns.
	Client client.Client
	// MetricsAddress is the address /metrics and the health endpoints are served on
	// (with a port of 0 configured, the one picked); empty when disabled.
	MetricsAddress string
}

// WithReady calls fn once the worker polls its task queue. fn runs on
// Run's goroutine: it must not block.
func WithReady(fn func(Ready)) Option {
	return func(o *options) { o.ready = fn }
}
