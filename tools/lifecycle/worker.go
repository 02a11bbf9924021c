package lifecycle

import (
	"encoding/json"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/checkpoint-finalizer/finalizer/activities"
	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/internal/workflowtest"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// retain is the workers' -retain: small, so that retention removes often.
const retain = 2

// worker is one finalizer worker: the real activities of the finalizer
// and the reconciler, wired as worker/run.go wires them, over recorders of
// the shared store and bucket, run in the SDK's activity environment (the
// cheapest real activity context: activity.GetInfo, heartbeats and the
// metrics handler all work, and arguments and results pass the data
// converter as they do on the wire). One environment serves every call.
type worker struct {
	env    *testsuite.TestActivityEnvironment
	acts   *activities.Activities
	racts  *reconcileacts.Activities
	refs   *recordedStore
	states *recordedStates
	tenant *tenant
	// seen is the world's coverage count of the schedule running.
	seen map[string]int
}

func newWorker(cluster string, fins reconcileacts.Finalizations, objects map[string]string, writes, changes *uint64) (*worker, error) {
	layout, err := blobstate.ParseLayout(layoutSpec(cluster))
	if err != nil {
		return nil, err
	}
	t := &tenant{cluster: cluster, objects: objects}
	w := &worker{tenant: t, refs: &recordedStore{t: t, writes: writes}, states: &recordedStates{t: t, changes: changes}}
	w.acts = &activities.Activities{References: w.refs, Leadership: w.refs, States: w.states, Layout: layout, StoreKind: "embedded", Retain: retain}
	w.racts = &reconcileacts.Activities{Inventory: w.refs, References: w.refs, States: w.states, Handles: w.states, Layout: layout, Finalizations: fins}
	w.env = workflowtest.Suite().NewTestActivityEnvironment()
	w.env.RegisterActivity(w.acts)
	w.env.RegisterActivity(w.racts)
	return w, nil
}

// fault is what Temporal's side of one activity attempt does.
type fault int

const (
	// faultNone: the attempt runs and its result reaches the workflow.
	faultNone fault = iota
	// faultTimeout: the attempt never ran (the worker crashed before it,
	// the task timed out on the way): nothing applied, the workflow sees a
	// timeout.
	faultTimeout
	// faultLost: the attempt ran and its effect applied, but its reply was
	// lost (the worker crashed after it, the connection dropped): the
	// workflow sees a timeout.
	faultLost
)

func (f fault) String() string {
	switch f {
	case faultTimeout:
		return " [timeout: not run]"
	case faultLost:
		return " [reply lost after it ran]"
	}
	return ""
}

// errTimeout is what a workflow sees of an attempt whose reply never came.
var errTimeout = temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_START_TO_CLOSE, errors.New("simulated: no reply"))

// dispatch is how Temporal delivers an activity attempt, as far as the
// activity can tell (activity.GetInfo).
type dispatch int

const (
	// asLocal: a local activity (or, alike for activities/publish.go, a
	// retry: no try can be ruled out). Only Publish reads its info; every
	// other activity runs this way, the SDK's environment running a local
	// activity in a sixth of a regular one's time.
	asLocal dispatch = iota
	// asFirstRegular: the first attempt of a regular activity. The SDK's
	// activity environment always reports attempt 1, so a retry runs
	// asLocal.
	asFirstRegular
)

// invoke runs one attempt of an activity on the worker: every activity
// call of the simulation passes here, and only here, so that whatever
// stands between Temporal and the activities in production (a tenant gate)
// goes in this one place. An error the activity returns is checked for
// digests of other tenants' objects its input did not carry.
func (w *worker) invoke(f fault, d dispatch, fn any, args ...any) (converter.EncodedValue, error) {
	if f == faultTimeout {
		return nil, errTimeout
	}
	var v converter.EncodedValue
	var err error
	if d == asFirstRegular {
		v, err = w.env.ExecuteActivity(fn, args...)
	} else {
		v, err = w.env.ExecuteLocalActivity(fn, args...)
	}
	if err != nil {
		input, _ := json.Marshal(args)
		w.tenant.leak(err.Error(), string(input))
	}
	if f == faultLost {
		return nil, errTimeout
	}
	return v, err
}

// call invokes an activity and decodes its result.
func call[T any](w *worker, f fault, d dispatch, fn any, args ...any) (T, error) {
	var out T
	v, err := w.invoke(f, d, fn, args...)
	if err != nil {
		return out, err
	}
	if v != nil && v.HasValue() {
		if derr := v.Get(&out); derr != nil {
			return out, fmt.Errorf("decode result: %w", derr)
		}
	}
	return out, nil
}

// retryable reports whether Temporal would retry an activity that failed
// with err: anything but a non-retryable application error.
func retryable(err error) bool {
	var app *temporal.ApplicationError
	return !errors.As(err, &app) || !app.NonRetryable()
}

// clip shortens the SDK's nested error texts for a step list.
func clip(s string) string {
	const max = 240
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
