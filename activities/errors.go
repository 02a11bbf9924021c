package activities

import (
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// translate turns a store outcome into the activity's result.
func translate(err error) error {
	switch stores.OutcomeOf(err) {
	case stores.Published:
		return nil
	case stores.Rejected:
		return temporal.NewNonRetryableApplicationError(err.Error(), contract.RejectionType(err), err)
	default:
		return temporal.NewApplicationErrorWithCause(err.Error(), contract.TypeUnknown, err)
	}
}
