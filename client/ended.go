package client

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// ErrEnded: the finalization (or claim, retirement, restore-point read)
// closed without a result (terminated, cancelled, timed out, or failed with
// an error that is no store rejection). It ended for good, a finalization
// not Published: waiting again answers the same; see EndedError.
var ErrEnded = errors.New("workflow ended without a result")

// EndedError is a workflow that closed without a result; Err is its
// closing failure as the SDK reported it (errors.As finds its
// *temporal.TerminatedError, *temporal.CanceledError, ...).
type EndedError struct {
	WorkflowID string
	Err        error
}

func (e *EndedError) Error() string {
	return fmt.Sprintf("%s ended without a result: %v", e.WorkflowID, e.Err)
}

func (e *EndedError) Is(target error) bool { return target == ErrEnded }
func (e *EndedError) Unwrap() error        { return e.Err }

// waitError classifies what waiting for a workflow's result returned (a
// finalization's, a claim's, a retirement's, a restore-point read's). Only
// a closed execution's failure (a *temporal.WorkflowExecutionError) says
// anything about the workflow: a definite rejection (the tenant
// gate's, say) is a *RejectedError, anything else it closed with an
// *EndedError. Every other error (ctx done, connection lost) says nothing,
// and is returned wrapped: wait again.
func waitError(workflowID string, err error) error {
	if _, closed := errors.AsType[*temporal.WorkflowExecutionError](err); !closed {
		return fmt.Errorf("wait for %s: %w", workflowID, err)
	}
	if contract.Rejection(err) != nil {
		return rejection(workflowID, err)
	}
	return &EndedError{WorkflowID: workflowID, Err: err}
}
