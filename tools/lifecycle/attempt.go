package lifecycle

import (
	"context"
	"fmt"
	"reflect"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/workflowtest"
)

// An attempt runs as a Temporal worker runs one once it has the attempt's
// context: the worker's interceptors (the tenant gate) first, then the
// activity function. As in the SDK, a regular attempt's arguments pass the
// data converter and its error the failure converter, a local one gets
// both as they are, and every result passes the data converter (call).
// The SDK's test environment did the same at a higher cost per call and
// kept every regular attempt it ran (a handle with its task and payloads)
// for as long as it lived; here it only makes the contexts.

// dataConverter and failureConverter are the SDK's defaults, which the
// worker uses (worker/run.go sets none) and the test environment too.
var (
	dataConverter    = converter.GetDefaultDataConverter()
	failureConverter = temporal.GetDefaultFailureConverter()
)

// activityContexts are real activity contexts of the SDK, one per
// dispatch, each kept from an activity run once in its test environment:
// activity.GetInfo (attempt, local or not), heartbeats and the metrics
// handler work on them as the activities use them. They are detached from
// the run's cancellation, which ended with it.
func activityContexts() ([2]context.Context, error) {
	var out [2]context.Context
	env := workflowtest.Suite().NewTestActivityEnvironment()
	var kept context.Context
	keep := func(ctx context.Context) error {
		kept = ctx
		return nil
	}
	const name = "keepContext"
	env.RegisterActivityWithOptions(keep, activity.RegisterOptions{Name: name})
	if _, err := env.ExecuteLocalActivity(keep); err != nil {
		return out, fmt.Errorf("a local activity's context: %w", err)
	}
	out[asLocal] = context.WithoutCancel(kept)
	if _, err := env.ExecuteActivity(name); err != nil {
		return out, fmt.Errorf("a regular activity's context: %w", err)
	}
	out[asFirstRegular] = context.WithoutCancel(kept)
	return out, nil
}

// activityFunc is the end of the interceptor chain: the activity itself,
// called as the SDK's own innermost interceptor calls it.
type activityFunc struct {
	interceptor.ActivityInboundInterceptorBase
	fn reflect.Value
	// ran: the chain let the call through to the activity.
	ran bool
}

func (a *activityFunc) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	a.ran = true
	vals := make([]reflect.Value, 0, 1+len(in.Args))
	vals = append(vals, reflect.ValueOf(ctx))
	for _, arg := range in.Args {
		vals = append(vals, reflect.ValueOf(arg))
	}
	out := a.fn.Call(vals)
	err, _ := out[len(out)-1].Interface().(error)
	if len(out) == 1 || err != nil {
		return nil, err
	}
	return out[0].Interface(), nil
}

// attempt runs fn with args through the worker's interceptors on the
// dispatch's context. refused: the interceptors answered without running
// fn (the gate's refusal, returned as the gate returns it).
func (w *worker) attempt(d dispatch, fn any, args []any) (result any, refused bool, err error) {
	f := &activityFunc{fn: reflect.ValueOf(fn)}
	ctx := w.contexts[d]
	if d == asFirstRegular {
		// A regular attempt's arguments arrive as payloads, decoded into
		// the function's parameter types before any interceptor sees them.
		if args, err = roundTrip(f.fn.Type(), args); err != nil {
			return nil, false, err
		}
	}
	result, err = w.interceptor.InterceptActivity(ctx, f).ExecuteActivity(ctx, &interceptor.ExecuteActivityInput{Args: args})
	if !f.ran {
		return nil, true, err
	}
	if err != nil && d == asFirstRegular {
		// A regular attempt's failure reaches the workflow as a failure.
		err = failureConverter.FailureToError(failureConverter.ErrorToFailure(err))
	}
	return result, false, err
}

// roundTrip encodes args and decodes them into fnType's parameters after
// its context.
func roundTrip(fnType reflect.Type, args []any) ([]any, error) {
	if fnType.NumIn() != 1+len(args) {
		panic(fmt.Sprintf("the simulation passes %d arguments to %s", len(args), fnType))
	}
	payloads, err := dataConverter.ToPayloads(args...)
	if err != nil {
		return nil, fmt.Errorf("encode arguments: %w", err)
	}
	ptrs := make([]any, len(args))
	for i := range args {
		ptrs[i] = reflect.New(fnType.In(1 + i)).Interface()
	}
	if err := dataConverter.FromPayloads(payloads, ptrs...); err != nil {
		return nil, fmt.Errorf("decode arguments: %w", err)
	}
	out := make([]any, len(ptrs))
	for i, p := range ptrs {
		out[i] = reflect.ValueOf(p).Elem().Interface()
	}
	return out, nil
}
