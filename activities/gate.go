package activities

import (
	"context"
	"fmt"

	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// ClusterScoped is an input that says which clusters it touches. Every
// workflow and activity input a worker registers is one: the gate refuses
// any other, so a new input type cannot reach a store until it says.
type ClusterScoped interface {
	Clusters() []string
}

// Gate is the worker's one tenant gate: every workflow and every activity
// passes it before its code runs (Interceptor). Anyone in the Temporal
// namespace can start any workflow type with any input, so what a worker
// may touch comes from its configuration (the layout's served clusters),
// never from the input. It fails closed: an input that is not
// ClusterScoped, names no cluster or one the worker does not serve is
// refused before anything is read or written.
type Gate struct {
	Layout blobstate.Layout
}

// Admit checks a call's arguments: nil, or the refusal a worker answers
// (Rejected.Invalid, never retried).
func (g Gate) Admit(args []any) error {
	if err := g.check(args); err != nil {
		return refusal(err)
	}
	return nil
}

func (g Gate) check(args []any) error {
	if len(args) == 0 {
		return &stores.InvalidError{Field: "input", Rule: "names no cluster: every workflow and activity input must say which cluster it touches"}
	}
	for i, arg := range args {
		scoped, ok := arg.(ClusterScoped)
		if !ok {
			return &stores.InvalidError{Field: "input", Rule: fmt.Sprintf("argument %d (%T) does not say which cluster it touches", i+1, arg)}
		}
		clusters := scoped.Clusters()
		if len(clusters) == 0 {
			return &stores.InvalidError{Field: "cluster", Rule: fmt.Sprintf("argument %d (%T) names no cluster", i+1, arg)}
		}
		for _, c := range clusters {
			if err := g.Layout.Serves(c); err != nil {
				return err
			}
		}
	}
	return nil
}

// refusal is the gate's answer: definite (nothing ran), never retried.
func refusal(err error) error {
	return temporal.NewNonRetryableApplicationError("tenant gate: "+err.Error(), contract.TypeInvalid, err)
}

// Interceptor is the gate as a worker interceptor (sdkworker.Options).
func (g Gate) Interceptor() interceptor.WorkerInterceptor { return &gateInterceptor{gate: g} }

type gateInterceptor struct {
	interceptor.WorkerInterceptorBase
	gate Gate
}

func (i *gateInterceptor) InterceptActivity(_ context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	a := &activityGate{gate: i.gate}
	a.Next = next
	return a
}

func (i *gateInterceptor) InterceptWorkflow(_ workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	w := &workflowGate{gate: i.gate}
	w.Next = next
	return w
}

type activityGate struct {
	interceptor.ActivityInboundInterceptorBase
	gate Gate
}

func (a *activityGate) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	if err := a.gate.Admit(in.Args); err != nil {
		return nil, err
	}
	return a.Next.ExecuteActivity(ctx, in)
}

type workflowGate struct {
	interceptor.WorkflowInboundInterceptorBase
	gate Gate
}

// ExecuteWorkflow refuses a start the gate does not admit. The layout is
// the worker's configuration, so a replay decides alike unless an operator
// stopped serving the cluster meanwhile; then the workflow's next task
// fails, visibly, and its activities are refused all the same.
func (w *workflowGate) ExecuteWorkflow(ctx workflow.Context, in *interceptor.ExecuteWorkflowInput) (any, error) {
	if err := w.gate.Admit(in.Args); err != nil {
		return nil, err
	}
	return w.Next.ExecuteWorkflow(ctx, in)
}
