package lifecycle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/activities"
	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/stores"
	finalizer "github.com/checkpoint-finalizer/finalizer/worker"
)

// retain is the workers' -retain: small, so that retention removes often.
const retain = 2

// worker is one finalizer worker: the real activities of the finalizer
// and the reconciler, wired as worker/run.go wires them, over recorders of
// the shared store and bucket, each call run as the worker runs an
// attempt (attempt.go): through its interceptors, the tenant gate, on a
// real activity context.
type worker struct {
	acts   *activities.Activities
	racts  *reconcileacts.Activities
	refs   *recordedStore
	states *recordedStates
	tenant *tenant
	life   *lifeline
	// interceptor is the worker's (worker/register.go): the tenant gate,
	// which every activity call passes.
	interceptor interceptor.WorkerInterceptor
	// contexts are the activity contexts of each dispatch.
	contexts [2]context.Context
	// seen is the world's coverage count of the schedule running.
	seen map[string]int
	// orphans are the handles the reconciler's inventories reported as
	// orphan candidates in the schedule running.
	orphans []string
	// handed are the jobs its publishes handed to its background
	// retention.
	handed handed
}

func newWorker(cluster string, fins activities.Finalizations, now func() time.Time, objects map[string]string, written map[stores.JobID]bool, changes *uint64) (*worker, error) {
	layout := layouts[cluster]
	t, life := &tenant{cluster: cluster, objects: objects}, &lifeline{left: -1}
	w := &worker{tenant: t, life: life, refs: &recordedStore{t: t, life: life, written: written}, states: &recordedStates{t: t, life: life, changes: changes}, handed: handed{}}
	// The production assembly: the same activities and tenant gate a
	// worker runs. The reconciler's floors count back from the simulated
	// now, so that the clock steps let tombstones and handles age.
	a := finalizer.Assemble(finalizer.Parts{Store: w.refs, Bucket: w.states, Layout: layout, StoreKind: "embedded",
		Retain: retain, Finalizations: fins, Floors: reconcileacts.DefaultFloors(), Clock: now})
	a.Finalizer.Retention = w.handed
	// The gate alone of its interceptors: the rejection log only changes
	// how a routine rejection is logged, which the checker does not judge.
	w.acts, w.racts, w.interceptor = a.Finalizer, a.Reconciler, a.Gate.Interceptor()
	var err error
	if w.contexts, err = activityContexts(); err != nil {
		return nil, err
	}
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
	// faultCrash1 and up: the worker dies after the attempt's first 1, 2,
	// 3 calls to the store and the bucket; what they did stays, the rest
	// never happens, the workflow sees a timeout.
	faultCrash1
	faultCrash2
	faultCrash3
)

// callsBeforeCrash is how many store and bucket calls a crash fault lets
// land, -1 for every other fault.
func (f fault) callsBeforeCrash() int {
	if f >= faultCrash1 {
		return int(f-faultCrash1) + 1
	}
	return -1
}

func (f fault) String() string {
	switch {
	case f == faultTimeout:
		return " [timeout: not run]"
	case f == faultLost:
		return " [reply lost after it ran]"
	case f >= faultCrash1:
		return fmt.Sprintf(" [worker dies after %d store and bucket calls]", f.callsBeforeCrash())
	}
	return ""
}

// lifeline is how many more calls to the store and the bucket the
// worker's activity may make before its worker dies; negative while it
// lives.
type lifeline struct{ left int }

// errDied is what a call gets once its worker has died; its activity's
// reply never reaches the workflow.
var errDied = stores.Unknownf(errors.New("simulated: the worker died"), "call")

// spend lets one call through, or refuses it once the worker has died.
func (l *lifeline) spend() error {
	switch {
	case l.left == 0:
		return errDied
	case l.left > 0:
		l.left--
	}
	return nil
}

// errTimeout is what a workflow sees of an attempt whose reply never came.
var errTimeout = temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_START_TO_CLOSE, errors.New("simulated: no reply"))

// dispatch is how Temporal delivers an activity attempt, as far as the
// activity can tell (activity.GetInfo).
type dispatch int

const (
	// asLocal: a local activity (or, alike for activities/publish.go, a
	// retry: no try can be ruled out). Only Publish reads its info; every
	// other activity runs this way.
	asLocal dispatch = iota
	// asFirstRegular: the first attempt of a regular activity. Its
	// context reports attempt 1, so a retry runs asLocal.
	asFirstRegular
)

// invoke runs one attempt of an activity on the worker: every activity
// call of the simulation passes here, and only here, through the
// worker's interceptors, so through the tenant gate that stands between
// Temporal and the activities in production (activities.Gate). An error
// the activity returns is checked for digests of other tenants' objects
// its input did not carry.
func (w *worker) invoke(f fault, d dispatch, fn any, args ...any) (any, error) {
	if f == faultTimeout {
		return nil, errTimeout
	}
	for _, arg := range args {
		if _, ok := arg.(activities.ClusterScoped); !ok {
			// The product's workflows never pass such an argument: a
			// mirror that does would only ever test the gate.
			panic(fmt.Sprintf("the simulation passes %T, which the workflows never pass", arg))
		}
	}
	w.life.left = f.callsBeforeCrash()
	defer func() { w.life.left = -1 }()
	v, refused, err := w.attempt(d, fn, args)
	if refused {
		return nil, err
	}
	if err != nil {
		input, _ := json.Marshal(args)
		w.tenant.leak(err.Error(), string(input))
	}
	if f != faultNone {
		return nil, errTimeout
	}
	return v, err
}

// call invokes an activity and decodes its result, which passes the data
// converter as on the wire.
func call[T any](w *worker, f fault, d dispatch, fn any, args ...any) (T, error) {
	var out T
	v, err := w.invoke(f, d, fn, args...)
	if err != nil || v == nil {
		return out, err
	}
	p, err := dataConverter.ToPayload(v)
	if err != nil {
		return out, fmt.Errorf("encode result: %w", err)
	}
	if err := dataConverter.FromPayload(p, &out); err != nil {
		return out, fmt.Errorf("decode result: %w", err)
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
