package client

import (
	"context"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// ErrNotVerifying: the finalization is not in Verifying, the only phase
// that reads the retry-now and abandon signals; nothing was sent. See
// NotVerifyingError.
var ErrNotVerifying = errors.New("finalization is not Verifying")

// NotVerifyingError is a finalization an operator signal would not reach:
// ended (Closed), or running in another phase, where a signal would wait
// unread and act at its first verify, if one ever comes.
type NotVerifyingError struct {
	WorkflowID string
	// Phase is the phase the execution's search attribute shows; Closed
	// tells that the execution has ended.
	Phase  contract.Phase
	Closed bool
}

func (e *NotVerifyingError) Error() string {
	if e.Closed {
		return fmt.Sprintf("%s has ended (%s): %v", e.WorkflowID, e.Phase, ErrNotVerifying)
	}
	return fmt.Sprintf("%s is %s, which does not read operator signals: %v", e.WorkflowID, e.Phase, ErrNotVerifying)
}

func (e *NotVerifyingError) Is(target error) bool { return target == ErrNotVerifying }

// Verifying returns the handle of the running finalization workflowID
// when it is Verifying, for RetryNow or Abandon: ErrNotFound without one,
// a *NotVerifyingError in any other phase. It reads the execution itself
// (describe), not visibility, which lags, and needs no worker: an
// operator acts when something is wrong. The phase can still change
// between this and the signal; a signal sent then waits for the next
// verify.
func (c *Client) Verifying(ctx context.Context, workflowID string) (*Finalization, error) {
	desc, err := c.tc.DescribeWorkflow(ctx, workflowID, "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return nil, fmt.Errorf("%s: %w", workflowID, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("describe %s: %w", workflowID, err)
	}
	info := desc.RawResponse.GetWorkflowExecutionInfo()
	var phase string
	if err := decodeAttr(info.GetSearchAttributes().GetIndexedFields()[contract.AttrPhase.GetName()], &phase); err != nil {
		return nil, fmt.Errorf("%s: search attribute %s: %w", workflowID, contract.AttrPhase.GetName(), err)
	}
	closed := info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	if closed || contract.Phase(phase) != contract.Verifying {
		return nil, &NotVerifyingError{WorkflowID: workflowID, Phase: contract.Phase(phase), Closed: closed}
	}
	return &Finalization{c: c, WorkflowID: workflowID, RunID: info.GetExecution().GetRunId()}, nil
}
