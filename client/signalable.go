package client

import (
	"context"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// ErrNotSignalable: the finalization is not in a phase that reads the
// retry-now and abandon signals (contract.Phase.ReadsOperatorSignals:
// Persisting, Verifying, Discarding); nothing was sent. See
// NotSignalableError.
var ErrNotSignalable = errors.New("finalization does not read operator signals now")

// ErrNotVerifying is ErrNotSignalable, under the name it had while only
// Verifying read the signals.
//
// Deprecated: use ErrNotSignalable.
var ErrNotVerifying = ErrNotSignalable

// NotSignalableError is a finalization an operator signal would not reach:
// ended (Closed), or running in a phase that does not read the signals
// (Publishing, which ends on its own within seconds), where a signal would
// wait unread.
type NotSignalableError struct {
	WorkflowID string
	// Phase is the phase the execution's search attribute shows; Closed
	// tells that the execution has ended.
	Phase  contract.Phase
	Closed bool
}

// NotVerifyingError is NotSignalableError under its former name.
//
// Deprecated: use NotSignalableError.
type NotVerifyingError = NotSignalableError

func (e *NotSignalableError) Error() string {
	if e.Closed {
		return fmt.Sprintf("%s has ended (%s): %v", e.WorkflowID, e.Phase, ErrNotSignalable)
	}
	return fmt.Sprintf("%s is %s, which does not read operator signals: %v", e.WorkflowID, e.Phase, ErrNotSignalable)
}

func (e *NotSignalableError) Is(target error) bool { return target == ErrNotSignalable }

// Signalable returns the handle of the running finalization workflowID
// and its phase when that phase reads operator signals (a running
// retirement's too, as Retiring; one a worker started before retirements
// read signals leaves them unread), for RetryNow or
// Abandon: ErrNotFound without one, a *NotSignalableError otherwise. It reads the
// execution itself (describe), not visibility, which lags, and needs no
// worker: an operator acts when something is wrong. The phase can still
// change between this and the signal; a signal sent then waits for the
// next phase that reads it, if one comes.
func (c *Client) Signalable(ctx context.Context, workflowID string) (*Finalization, contract.Phase, error) {
	info, err := c.executionInfo(ctx, workflowID)
	if err != nil {
		return nil, "", err
	}
	closed := info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	if info.GetType().GetName() == contract.RetireWorkflow {
		// A retirement has no phase attribute; running, it reads the
		// signals whether its store or its discard holds it.
		if closed {
			return nil, "", &NotSignalableError{WorkflowID: workflowID, Phase: Retiring, Closed: true}
		}
		return &Finalization{c: c, WorkflowID: workflowID, RunID: info.GetExecution().GetRunId()}, Retiring, nil
	}
	var phase string
	if err := decodeAttr(info.GetSearchAttributes().GetIndexedFields()[contract.AttrPhase.GetName()], &phase); err != nil {
		return nil, "", fmt.Errorf("%s: search attribute %s: %w", workflowID, contract.AttrPhase.GetName(), err)
	}
	if closed || !contract.Phase(phase).ReadsOperatorSignals() {
		return nil, "", &NotSignalableError{WorkflowID: workflowID, Phase: contract.Phase(phase), Closed: closed}
	}
	return &Finalization{c: c, WorkflowID: workflowID, RunID: info.GetExecution().GetRunId()}, contract.Phase(phase), nil
}

// Verifying is Signalable under its former name.
//
// Deprecated: use Signalable.
func (c *Client) Verifying(ctx context.Context, workflowID string) (*Finalization, error) {
	f, _, err := c.Signalable(ctx, workflowID)
	return f, err
}
