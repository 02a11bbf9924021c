package workflows

import (
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// The "operator-signals-every-phase" change: the retry-now and abandon
// signals reach a finalization wherever it retries without limit, not only
// while Verifying: Persisting (its bucket fails) and Discarding (its
// deletes fail) too. Executions recorded before the change waited on those
// activities alone; a signal sent then stayed unread until a verify.
const operatorSignalsChange = "operator-signals-every-phase"

// operatorReachable reports whether this execution lets operator signals
// interrupt the activity it is about to schedule. Asked only on the paths
// that retry without limit (the persist's fallback, a discard), so a
// finalization that publishes at once records no marker.
func operatorReachable(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, operatorSignalsChange, workflow.DefaultVersion, 1) == 1
}

// operator is what an operator's signals reach: retry-now and abandon, and
// the abandon's reason once one came.
type operator struct {
	retryNow workflow.ReceiveChannel
	abandon  workflow.ReceiveChannel
	// abandoned is the operator's reason, once one abandoned the execution.
	abandoned string
}

func newOperator(ctx workflow.Context) operator {
	return operator{
		retryNow: workflow.GetSignalChannel(ctx, contract.RetryNowSignal),
		abandon:  workflow.GetSignalChannel(ctx, contract.AbandonSignal),
	}
}

// operatorSelector waits for retry-now or abandon; a caller adds what else
// it waits for.
func (o *operator) operatorSelector(ctx workflow.Context) workflow.Selector {
	sel := workflow.NewSelector(ctx)
	sel.AddReceive(o.retryNow, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, nil) })
	sel.AddReceive(o.abandon, func(c workflow.ReceiveChannel, _ bool) {
		c.Receive(ctx, &o.abandoned)
		if o.abandoned == "" {
			o.abandoned = "abandoned by operator"
		}
	})
	return sel
}

// interruptible runs a regular activity of c that an operator's signal
// reaches: retry-now stops it, waits until it has stopped (two tries of
// one write never overlap) and schedules it anew at once, unless it ended
// meanwhile; abandon stops it and returns, o.abandoned set, with what the
// activity ended with (nil when it completed before the cancel reached it).
func (o *operator) interruptible(ctx workflow.Context, c call, activity, in, out any) error {
	for {
		actx, cancel := workflow.WithCancel(ctx)
		future := c.stoppable(actx, activity, in)
		var (
			err  error
			done bool
		)
		sel := o.operatorSelector(ctx)
		sel.AddFuture(future, func(fu workflow.Future) { err, done = fu.Get(ctx, out), true })
		sel.Select(ctx)
		cancel()
		if done {
			return err
		}
		err = future.Get(ctx, out)
		if o.abandoned != "" || err == nil || definite(err) && !temporal.IsCanceledError(err) {
			return err
		}
	}
}
