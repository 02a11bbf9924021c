package contract

import (
	"errors"
	"strings"

	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Failure types: the Type of the temporal.ApplicationError an activity
// fails with and a workflow fails with in turn (ClaimEpoch fails with
// Rejected.StaleEpoch). A type that starts with RejectedPrefix is definite:
// the write did not happen. Anything else is Unknown: it may have landed.
const (
	// RejectedPrefix starts every definite rejection's type.
	RejectedPrefix = "Rejected."

	TypeUnknown = "Unknown"
	// TypeRejectedAfterRetry: a publish rejected on a retry (or run as a
	// local activity), which cannot rule out that an earlier try landed;
	// the workflow verifies.
	TypeRejectedAfterRetry = "Unknown.RejectedAfterRetry"
	// TypeCorruptState: the store holds a missing, malformed or foreign
	// state where the call had to decide (stores.ErrCorruptState). It is
	// retryable like every Unknown: the finalization parks, visible, until
	// an operator repairs the store, and never reads it as a rejection.
	TypeCorruptState = "Unknown.CorruptState"
	// TypeAbandoned: an operator abandoned a retirement before its store
	// answered (the abandon signal): it may have retired the job, and
	// nothing was discarded. The retirement ended for good; retire again
	// to learn the outcome.
	TypeAbandoned = "Unknown.Abandoned"

	// The store's refusals; see rejections.
	TypeStaleEpoch     = "Rejected.StaleEpoch"
	TypeConflict       = "Rejected.Conflict"
	TypeFenced         = "Rejected.Fenced"
	TypeBelowWatermark = "Rejected.BelowWatermark"
	TypeRetired        = "Rejected.Retired"
	TypeTooLarge       = "Rejected.TooLarge"
	TypeInvalid        = "Rejected.Invalid"
	TypeForbidden      = "Rejected.Forbidden"
	TypeHandleConflict = "Rejected.HandleConflict"
	// TypeOther: a definite rejection the table does not name.
	TypeOther = "Rejected.Other"

	// TypeDataMissing: the checkpoint's metadata is missing or fails its
	// checksum; nothing was published.
	TypeDataMissing = "Rejected.DataMissing"
	// TypeCorruptHandle: a handle blob that fails its checksum says nothing
	// safe to delete; it is kept.
	TypeCorruptHandle = "Rejected.CorruptHandle"
	// TypeSavepoint: the reconciler never discards a savepoint.
	TypeSavepoint = "Rejected.Savepoint"
	// TypeOutsideLayout: a handle read back from the bucket names data
	// outside its checkpoint's directory in the worker's layout; it is kept.
	TypeOutsideLayout = "Rejected.OutsideLayout"
)

// rejections is the one table between the store's definite refusals and
// their failure types: the activities name a refusal by it, the client maps
// a workflow's failure back to the store's sentinel by it. The first match
// wins, so its order decides for an error that wraps two sentinels.
var rejections = []struct {
	typ string
	err error
}{
	{TypeStaleEpoch, stores.ErrStaleEpoch},
	{TypeConflict, stores.ErrConflict},
	{TypeFenced, stores.ErrFenced},
	{TypeBelowWatermark, stores.ErrBelowWatermark},
	{TypeRetired, stores.ErrRetired},
	{TypeTooLarge, stores.ErrTooLarge},
	{TypeInvalid, stores.ErrInvalid},
	{TypeForbidden, stores.ErrForbidden},
	{TypeHandleConflict, stores.ErrHandleConflict},
}

// RejectionType names the reason of a definite rejection: the type of the
// first sentinel of the table err matches, TypeOther if none.
func RejectionType(err error) string {
	for _, r := range rejections {
		if errors.Is(err, r.err) {
			return r.typ
		}
	}
	return TypeOther
}

// UnknownType names the reason of a failure whose outcome is unknown:
// TypeCorruptState for a store holding corrupt state, TypeUnknown for
// everything else (connection loss, timeouts, 5xx).
func UnknownType(err error) string {
	if errors.Is(err, stores.ErrCorruptState) {
		return TypeCorruptState
	}
	return TypeUnknown
}

// RejectionSentinel is the store's sentinel of a failure type, nil for a
// type the table does not name.
func RejectionSentinel(typ string) error {
	for _, r := range rejections {
		if r.typ == typ {
			return r.err
		}
	}
	return nil
}

// Rejection is the definite rejection err carries (an application error
// whose type starts with RejectedPrefix, found through the SDK's wrapping:
// activity error, workflow execution error), nil if it carries none. Every
// other failure, timeouts and cancellations included, is Unknown.
func Rejection(err error) *temporal.ApplicationError {
	var app *temporal.ApplicationError
	if errors.As(err, &app) && strings.HasPrefix(app.Type(), RejectedPrefix) {
		return app
	}
	return nil
}

// FailureMessage is what a failure says without the SDK's wrapping: the
// application error's own message and its type ("... (Rejected.Conflict)")
// when there is one, else the error's text. A finalization's reason and
// last error and a reconcile report's actions and errors carry failures in
// this form.
func FailureMessage(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Message() + " (" + app.Type() + ")"
	}
	return err.Error()
}
