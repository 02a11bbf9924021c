package worker

import (
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/checkpoint-finalizer/finalizer/activities"
	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// Parts are what one worker is assembled from. Run builds them from its
// Config and the servers it opens; a harness passes its own servers, the
// fault wrappers it injects and its clock. Assemble is the one place that
// puts them together, so that every worker a test runs is the one we ship:
// the same activities, the same reconciler, the same tenant gate.
type Parts struct {
	// Store is the reference store: its leadership serves claims and
	// retirements, its inventory the reconciler.
	Store interface {
		activities.References
		activities.Leadership
		reconcileacts.Inventory
	}
	// References is what finalizations publish, verify and subsume
	// through, and the reconciler's guard reads; nil: Store. A harness
	// wraps Store here to inject faults.
	References activities.References
	// Leadership is what claims and retirements go through; nil: Store.
	Leadership activities.Leadership
	// Bucket holds the state handles: the reconciler reads and discards
	// through it, retirements list it.
	Bucket interface {
		activities.States
		reconcileacts.States
		reconcileacts.Handles
	}
	// States is what finalizations persist and discard through; nil:
	// Bucket, as activities.States.
	States activities.States
	// Layout is where each served cluster keeps its checkpoints; the zero
	// Layout serves every cluster at "<cluster>/".
	Layout blobstate.Layout
	// StoreKind names the store backend, for visibility.
	StoreKind string
	// Temporal signals the per-job coordinator and answers whether a
	// finalization has closed; nil leaves both out (a unit test's world).
	Temporal  client.Client
	TaskQueue string
	// Finalizations overrides the closed-finalization answers (a model
	// checker's own Temporal); nil: Temporal's.
	Finalizations activities.Finalizations
	// Retain is how many references per job retention keeps.
	Retain int
	// Floors are the reconciler's shortest grace and tombstone TTL.
	Floors reconcileacts.Floors
	// Clock is the reconciler's clock; nil: time.Now.
	Clock func() time.Time
}

// Assembly is one worker's parts put together: the finalizer's and the
// reconciler's activities and the interceptors every worker runs.
type Assembly struct {
	Finalizer  *activities.Activities
	Reconciler *reconcileacts.Activities
	// Gate is the tenant gate over the assembly's layout.
	Gate activities.Gate
	// Interceptors are the one tenant gate (activities.Gate), which every
	// workflow and activity Register registers passes before its code
	// runs, then rejectionLog, which logs an activity's routine rejection
	// at WARN instead of the SDK's ERROR.
	Interceptors []interceptor.WorkerInterceptor
}

// Assemble puts p together.
func Assemble(p Parts) *Assembly {
	refs := p.References
	if refs == nil {
		refs = p.Store
	}
	var leadership activities.Leadership = p.Store
	if p.Leadership != nil {
		leadership = p.Leadership
	}
	states := p.States
	if states == nil {
		states = p.Bucket
	}
	fins := p.Finalizations
	var signaller activities.Signaller
	if p.Temporal != nil {
		signaller = p.Temporal
		if fins == nil {
			fins = activities.TemporalFinalizations{Client: p.Temporal}
		}
	}
	gate := activities.Gate{Layout: p.Layout}
	return &Assembly{
		Finalizer: &activities.Activities{
			References:    refs,
			Leadership:    leadership,
			States:        states,
			Handles:       p.Bucket,
			Layout:        p.Layout,
			StoreKind:     p.StoreKind,
			Temporal:      signaller,
			TaskQueue:     p.TaskQueue,
			Finalizations: fins,
			Retain:        p.Retain,
		},
		Reconciler: &reconcileacts.Activities{
			Inventory:     p.Store,
			References:    refs,
			States:        p.Bucket,
			Handles:       p.Bucket,
			Layout:        p.Layout,
			Finalizations: fins,
			Floors:        p.Floors,
			Clock:         p.Clock,
		},
		Gate:         gate,
		Interceptors: []interceptor.WorkerInterceptor{gate.Interceptor(), &rejectionLog{}},
	}
}

// Register registers every workflow and activity of the assembly with r.
func (a *Assembly) Register(r Registry) { Register(r, a.Finalizer, a.Reconciler) }

// Options returns o with the assembly's interceptors ahead of o's own.
func (a *Assembly) Options(o sdkworker.Options) sdkworker.Options {
	o.Interceptors = append(append([]interceptor.WorkerInterceptor{}, a.Interceptors...), o.Interceptors...)
	return o
}
