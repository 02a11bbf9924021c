package client

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
)

// executionInfo describes the execution that stands for id: ErrNotFound
// without one. It reads the execution itself, not visibility, which lags.
func (c *Client) executionInfo(ctx context.Context, id string) (*workflowpb.WorkflowExecutionInfo, error) {
	desc, err := c.tc.DescribeWorkflow(ctx, id, "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return nil, fmt.Errorf("%s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("describe %s: %w", id, err)
	}
	return desc.RawResponse.GetWorkflowExecutionInfo(), nil
}
