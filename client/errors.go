package client

import (
	"errors"
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Sentinels for errors.Is. The store's rejections are the stores package's
// own values, so a caller that already tests store errors needs nothing new.
var (
	// ErrInvalidRequest: the request broke a validation rule and nothing
	// was sent; the error also matches stores.ErrInvalid and unwraps to a
	// *stores.InvalidError naming the field.
	ErrInvalidRequest = errors.New("invalid request")
	// ErrContentMismatch: an execution of the same identity exists with
	// different content; see ContentMismatchError.
	ErrContentMismatch = errors.New("finalization exists with different content")
	// ErrNotFound: no execution of that identity exists.
	ErrNotFound = errors.New("finalization not found")
	// ErrRejected: the store definitely refused (the write did not happen);
	// see RejectedError.
	ErrRejected = errors.New("rejected by the store")

	ErrStaleEpoch = stores.ErrStaleEpoch
	ErrRetired    = stores.ErrRetired
	ErrForbidden  = stores.ErrForbidden
)

// RejectedError is a definite refusal of a claim or retirement by the
// store, as the workflow reported it.
type RejectedError struct {
	WorkflowID string
	// Type is the failure's type, e.g. "Rejected.StaleEpoch".
	Type    string
	Message string
}

func (e *RejectedError) Error() string {
	return fmt.Sprintf("%s: %s (%s)", e.WorkflowID, e.Message, e.Type)
}

// Is matches ErrRejected and the store sentinel of the rejection's type
// (the contract's table: contract.RejectionSentinel).
func (e *RejectedError) Is(target error) bool {
	if target == ErrRejected {
		return true
	}
	s := contract.RejectionSentinel(e.Type)
	return s != nil && s == target
}

// ContentMismatchError: Finalize found an execution of the same identity
// whose request differs. Nothing new was started.
type ContentMismatchError struct {
	WorkflowID, RunID string
	// Existing is the content hash of the running or completed execution,
	// Requested the one of the refused request.
	Existing, Requested string
}

func (e *ContentMismatchError) Error() string {
	return fmt.Sprintf("%s (run %s) holds content %s, the request has %s: %v",
		e.WorkflowID, e.RunID, e.Existing, e.Requested, ErrContentMismatch)
}

func (e *ContentMismatchError) Is(target error) bool { return target == ErrContentMismatch }

// invalidRequest marks a validation error so that it matches both
// ErrInvalidRequest and the store's ErrInvalid (through err).
func invalidRequest(op string, err error) error {
	return fmt.Errorf("%s: %w: %w", op, ErrInvalidRequest, err)
}

// rejection turns a workflow's failure into a *RejectedError when its cause
// is a definite rejection; any other error is returned wrapped as it is.
func rejection(workflowID string, err error) error {
	if app := contract.Rejection(err); app != nil {
		return &RejectedError{WorkflowID: workflowID, Type: app.Type(), Message: app.Message()}
	}
	return fmt.Errorf("%s: %w", workflowID, err)
}
