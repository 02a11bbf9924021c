package activities

import (
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Translate turns a store outcome into the activity's result (see the
// package documentation). Exported so that the reconciler's activities
// (activities/reconcile) fail in the same types.
func Translate(err error) error {
	switch stores.OutcomeOf(err) {
	case stores.Published:
		return nil
	case stores.Rejected:
		return temporal.NewNonRetryableApplicationError(err.Error(), contract.RejectionType(err), err)
	default:
		return temporal.NewApplicationErrorWithCause(err.Error(), contract.UnknownType(err), err)
	}
}
