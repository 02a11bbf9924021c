package client

import (
	"context"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// describe finds the execution that stands for id and the content hash its
// memo carries ("" when it has none).
func (c *Client) describe(ctx context.Context, id string) (*Finalization, string, error) {
	info, err := c.executionInfo(ctx, id)
	if err != nil {
		return nil, "", err
	}
	f := &Finalization{c: c, WorkflowID: id, RunID: info.GetExecution().GetRunId()}
	p, ok := info.GetMemo().GetFields()[MemoContentHash]
	if !ok {
		return f, "", nil
	}
	var hash string
	if err := c.dc.FromPayload(p, &hash); err != nil {
		return nil, "", fmt.Errorf("%s: memo %s: %w", id, MemoContentHash, err)
	}
	return f, hash, nil
}

// contentFromHistory hashes the request an execution was started with: the
// truth when the memo disagrees or is missing.
func (c *Client) contentFromHistory(ctx context.Context, id, runID string) (string, error) {
	it := c.tc.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	if !it.HasNext() {
		return "", fmt.Errorf("%s: empty history", id)
	}
	ev, err := it.Next()
	if err != nil {
		return "", fmt.Errorf("%s: read start event: %w", id, err)
	}
	attrs := ev.GetWorkflowExecutionStartedEventAttributes()
	if attrs == nil {
		return "", fmt.Errorf("%s: first event is %s, not a start", id, ev.GetEventType())
	}
	var req contract.FinalizeRequest
	if err := c.dc.FromPayloads(attrs.GetInput(), &req); err != nil {
		return "", fmt.Errorf("%s: decode start input: %w", id, err)
	}
	return req.ContentHash(), nil
}
