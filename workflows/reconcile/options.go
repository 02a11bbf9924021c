package reconcile

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/activities"
)

// reconcileOptions: the reconciler's calls retry a few times and then give
// up on that item, which the report lists as an error: a store or bucket
// that does not answer must not stop the rest of the cluster, and nothing
// is deleted without a definite answer anyway. A discard of many objects
// or an inventory of a large job takes minutes; each heartbeats.
func reconcileOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		HeartbeatTimeout:    activities.HeartbeatTimeout,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 5,
		},
	})
}
