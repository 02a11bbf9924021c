package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/activities"
)

// Timeouts are set per activity, deliberately:
//   - store calls answer in milliseconds; 30 s start-to-close turns a hung
//     call into an Unknown the workflow can act on;
//   - verify heartbeats, so a worker that dies mid-call is noticed in 10 s,
//     and retries without limit, backing off to 5 min: the store decides
//     when it is done, not a count;
//   - publish retries a few times within the same attempt number: a retry
//     after an Unknown finds its own applied write (Published).

// backoff is the unlimited retry policy of calls that must eventually
// succeed; nonRetryable types still end them.
func backoff() *temporal.RetryPolicy {
	return &temporal.RetryPolicy{
		InitialInterval:    time.Second,
		BackoffCoefficient: 2,
		MaximumInterval:    5 * time.Minute,
		MaximumAttempts:    0,
	}
}

// call is the timeouts and retries of an activity the fast path may run
// locally: the same either way (a local activity has no heartbeat).
type call struct {
	startToClose time.Duration
	heartbeat    time.Duration
	retry        *temporal.RetryPolicy
}

// execute runs activity as a local activity when local, else as a regular one.
func (c call) execute(ctx workflow.Context, local bool, activity any, args ...any) workflow.Future {
	if local {
		ctx = workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: c.startToClose, RetryPolicy: c.retry})
		return workflow.ExecuteLocalActivity(ctx, activity, args...)
	}
	return workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, c.options()), activity, args...)
}

// stoppable runs activity as a regular activity whose cancellation the
// workflow waits out: the future resolves once the activity has stopped
// (see finalization.interruptible).
func (c call) stoppable(ctx workflow.Context, activity any, args ...any) workflow.Future {
	o := c.options()
	o.WaitForCancellation = true
	return workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, o), activity, args...)
}

func (c call) options() workflow.ActivityOptions {
	return workflow.ActivityOptions{StartToCloseTimeout: c.startToClose, HeartbeatTimeout: c.heartbeat, RetryPolicy: c.retry}
}

var (
	persistCall = call{startToClose: time.Minute, retry: backoff()}
	publishCall = call{startToClose: 30 * time.Second, retry: &temporal.RetryPolicy{
		InitialInterval:    200 * time.Millisecond,
		BackoffCoefficient: 2,
		MaximumInterval:    2 * time.Second,
		MaximumAttempts:    3,
	}}
	storeCall = call{startToClose: 30 * time.Second, retry: backoff()}
	// discardCall: deletes of many objects take longer than a store call.
	discardCall = call{startToClose: 5 * time.Minute, heartbeat: activities.HeartbeatTimeout, retry: backoff()}
	reportCall  = call{startToClose: 30 * time.Second, retry: &temporal.RetryPolicy{
		InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 10,
	}}
)

func verifyOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		HeartbeatTimeout:    10 * time.Second,
		RetryPolicy:         backoff(),
		// Retry-now and abandon cancel a verify: wait until it has stopped,
		// so that two verifies of one key never overlap.
		WaitForCancellation: true,
	})
}

// removalOptions: a retention pass's removals run as one activity that
// heartbeats, so a worker that dies mid-batch is noticed in 30 s, and
// retries without limit: its plan is already partly applied.
func removalOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		HeartbeatTimeout:    activities.HeartbeatTimeout,
		RetryPolicy:         backoff(),
	})
}
