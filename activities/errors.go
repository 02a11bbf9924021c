package activities

import (
	"errors"

	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// Error types the workflows branch on.
const (
	TypeUnknown            = "Unknown"
	TypeRejectedAfterRetry = "Unknown.RejectedAfterRetry"
	TypeDataMissing        = "Rejected.DataMissing"
	// TypeCorruptHandle: a handle blob that fails its checksum says nothing
	// safe to delete; it is kept.
	TypeCorruptHandle = "Rejected.CorruptHandle"
	// TypeSavepoint: the reconciler never discards a savepoint.
	TypeSavepoint = "Rejected.Savepoint"
	// TypeOutsideLayout: a handle read back from the bucket names data
	// outside its checkpoint's directory in the worker's layout; it is kept.
	TypeOutsideLayout = "Rejected.OutsideLayout"
	// RejectedPrefix starts every definite rejection's type.
	RejectedPrefix = "Rejected."
)

var rejections = []struct {
	err error
	typ string
}{
	{stores.ErrStaleEpoch, "Rejected.StaleEpoch"},
	{stores.ErrConflict, "Rejected.Conflict"},
	{stores.ErrFenced, "Rejected.Fenced"},
	{stores.ErrBelowWatermark, "Rejected.BelowWatermark"},
	{stores.ErrRetired, "Rejected.Retired"},
	{stores.ErrTooLarge, "Rejected.TooLarge"},
	{stores.ErrInvalid, "Rejected.Invalid"},
	{stores.ErrForbidden, "Rejected.Forbidden"},
	{blobstate.ErrConflict, "Rejected.HandleConflict"},
}

// RejectionType names the reason of a definite rejection.
func RejectionType(err error) string {
	for _, r := range rejections {
		if errors.Is(err, r.err) {
			return r.typ
		}
	}
	return RejectedPrefix + "Other"
}

// translate turns a store outcome into the activity's result.
func translate(err error) error {
	switch stores.OutcomeOf(err) {
	case stores.Published:
		return nil
	case stores.Rejected:
		return temporal.NewNonRetryableApplicationError(err.Error(), RejectionType(err), err)
	default:
		return temporal.NewApplicationErrorWithCause(err.Error(), TypeUnknown, err)
	}
}
