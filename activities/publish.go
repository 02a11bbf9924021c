package activities

import (
	"context"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Publish makes one publish attempt; Temporal's retries of it share the
// attempt number. A retry only follows an Unknown, so a rejection on a retry
// cannot rule out the earlier try: it is reported as RejectedAfterRetry, which
// the workflow verifies.
//
// A reference published hands its job to the worker's background
// retention (Retention), which removes what it subsumes.
//
// Run as a local activity, no try can be ruled out: a worker that crashed
// after its write landed leaves no trace in the history, and the workflow
// task's retry runs the activity again as its first attempt. Its rejections
// are always RejectedAfterRetry.
func (a *Activities) Publish(ctx context.Context, p stores.Publication) error {
	err := a.References.Publish(ctx, p)
	outcome := stores.OutcomeOf(err)
	CountStoreCall(ctx, "publish", outcome)
	if outcome == stores.Published && a.Retention != nil {
		a.Retention.Enqueue(p.JobID)
	}
	info := activity.GetInfo(ctx)
	if outcome == stores.Rejected && (info.Attempt > 1 || info.IsLocalActivity) && !errorsIsInvalid(err) {
		return temporal.NewNonRetryableApplicationError(err.Error(), contract.TypeRejectedAfterRetry, err)
	}
	return Translate(err)
}

func errorsIsInvalid(err error) bool { return contract.RejectionType(err) == contract.TypeInvalid }
