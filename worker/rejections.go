package worker

import (
	"context"
	"errors"
	"slices"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// routineRejections are the store's definite refusals that the protocol
// expects in normal operation: a deposed leader's late call (stale epoch,
// fenced, below the watermark), a retired job, a key another token took,
// a savepoint the reconciler keeps. Each is an answer, not a fault.
var routineRejections = []string{
	contract.TypeStaleEpoch, contract.TypeConflict, contract.TypeFenced, contract.TypeBelowWatermark,
	contract.TypeRetired, contract.TypeHandleConflict, contract.TypeSavepoint,
}

// rejectionLog is a worker interceptor that logs an activity's routine
// rejection once, at WARN, and marks it benign. Without it the SDK logs
// every failed activity as level=ERROR msg="Activity error." and counts it
// in its failure metrics, which pages on-call for a deposed leader doing
// what it should. The benign category only changes logging and metrics:
// the failure's type, message, cause and retryability stay as they were,
// so workflows decide alike. Rejections that need an operator (invalid
// input, forbidden, corrupt or missing data) keep the SDK's ERROR.
type rejectionLog struct {
	interceptor.WorkerInterceptorBase
}

func (*rejectionLog) InterceptActivity(_ context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	a := &rejectionLogActivity{}
	a.Next = next
	return a
}

type rejectionLogActivity struct {
	interceptor.ActivityInboundInterceptorBase
}

func (a *rejectionLogActivity) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	res, err := a.Next.ExecuteActivity(ctx, in)
	app := routineRejection(err)
	if app == nil {
		return res, err
	}
	info := activity.GetInfo(ctx)
	activity.GetLogger(ctx).Warn("Activity rejected.", "Reason", app.Type(), "Attempt", info.Attempt, "Error", err)
	return res, benign(app)
}

// routineRejection is err's routine rejection, nil if it is none. Only an
// application error returned as it is qualifies: the SDK reads the
// category off the returned error itself, never through wrapping.
func routineRejection(err error) *temporal.ApplicationError {
	app, ok := err.(*temporal.ApplicationError)
	if !ok || !slices.Contains(routineRejections, app.Type()) || app.HasDetails() {
		return nil
	}
	return app
}

// benign is app with the benign category, everything else kept.
func benign(app *temporal.ApplicationError) error {
	return temporal.NewApplicationErrorWithOptions(app.Message(), app.Type(), temporal.ApplicationErrorOptions{
		NonRetryable:   app.NonRetryable(),
		Cause:          errors.Unwrap(app),
		NextRetryDelay: app.NextRetryDelay(),
		Category:       temporal.ApplicationErrorCategoryBenign,
	})
}
