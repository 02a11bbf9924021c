package client

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// StuckQuery is the visibility filter of executions that have stayed in one
// running phase (contract.RunningPhases: Persisting with a failing bucket as
// much as Verifying with a silent store) since before cutoff (now minus the
// threshold), the same text the Web UI's search box and `temporal workflow
// list --query` take. cutoff is written in UTC, RFC 3339, to the second
// (rounded down: an execution is listed at most a second late).
func StuckQuery(cutoff time.Time) string {
	phases := make([]string, 0, len(contract.RunningPhases()))
	for _, p := range contract.RunningPhases() {
		phases = append(phases, strconv.Quote(string(p)))
	}
	return fmt.Sprintf(`%s IN (%s) AND %s < "%s" AND ExecutionStatus = "Running"`,
		contract.AttrPhase.GetName(), strings.Join(phases, ", "),
		contract.AttrPhaseSince.GetName(), cutoff.UTC().Format(time.RFC3339))
}

// VerifyingQuery is StuckQuery for Verifying alone: the finalizations
// parked because their store did not answer whether a reference landed.
func VerifyingQuery(cutoff time.Time) string {
	return fmt.Sprintf(`%s = "%s" AND %s < "%s" AND ExecutionStatus = "Running"`,
		contract.AttrPhase.GetName(), contract.Verifying,
		contract.AttrPhaseSince.GetName(), cutoff.UTC().Format(time.RFC3339))
}

// Stuck is one execution that has stayed in a running phase: Verifying (its
// store did not answer whether the reference landed; nothing is discarded
// until it does), Persisting (the bucket fails), and so on.
type Stuck struct {
	WorkflowID string         `json:"workflowId"`
	RunID      string         `json:"runId"`
	Cluster    string         `json:"cluster"`
	Job        string         `json:"job"`
	Epoch      uint64         `json:"epoch"`
	Checkpoint uint64         `json:"checkpoint"`
	Phase      contract.Phase `json:"phase"`
	PhaseSince time.Time      `json:"phaseSince"`
	StartTime  time.Time      `json:"startTime"`
	StoreKind  string         `json:"storeKind,omitempty"`
	Summary    string         `json:"summary,omitempty"`
}

// ListStuck lists the executions that have stayed in one running phase for
// longer than olderThan, oldest first as visibility orders them. Visibility lags
// the workflows by a moment: a finalization that just changed phase may
// show its former one.
func (c *Client) ListStuck(ctx context.Context, olderThan time.Duration) ([]Stuck, error) {
	query := StuckQuery(time.Now().Add(-olderThan))
	var out []Stuck
	var token []byte
	for {
		resp, err := c.tc.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: query, NextPageToken: token})
		if err != nil {
			return nil, fmt.Errorf("list stuck finalizations (%s): %w", query, err)
		}
		for _, info := range resp.GetExecutions() {
			s, err := c.stuckOf(info)
			if err != nil {
				return nil, fmt.Errorf("list stuck finalizations: %w", err)
			}
			out = append(out, s)
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			return out, nil
		}
	}
}

func (c *Client) stuckOf(info *workflowpb.WorkflowExecutionInfo) (Stuck, error) {
	s := Stuck{
		WorkflowID: info.GetExecution().GetWorkflowId(),
		RunID:      info.GetExecution().GetRunId(),
		StartTime:  info.GetStartTime().AsTime(),
	}
	attrs := info.GetSearchAttributes().GetIndexedFields()
	var epoch, checkpoint int64
	var phase string
	fields := []struct {
		name string
		into any
	}{
		{contract.AttrCluster.GetName(), &s.Cluster},
		{contract.AttrJob.GetName(), &s.Job},
		{contract.AttrEpoch.GetName(), &epoch},
		{contract.AttrCheckpoint.GetName(), &checkpoint},
		{contract.AttrPhase.GetName(), &phase},
		{contract.AttrPhaseSince.GetName(), &s.PhaseSince},
		{contract.AttrStoreKind.GetName(), &s.StoreKind},
	}
	for _, f := range fields {
		if err := decodeAttr(attrs[f.name], f.into); err != nil {
			return s, fmt.Errorf("%s: search attribute %s: %w", s.WorkflowID, f.name, err)
		}
	}
	s.Epoch, s.Checkpoint, s.Phase = uint64(epoch), uint64(checkpoint), contract.Phase(phase)
	if p, ok := info.GetMemo().GetFields()[MemoSummary]; ok {
		// A summary is a courtesy: an undecodable one is left out.
		_ = c.dc.FromPayload(p, &s.Summary)
	}
	return s, nil
}

// decodeAttr decodes a search attribute; an absent one is left at its zero
// value. The SDK encodes search attributes with the default converter,
// never a caller's custom one.
func decodeAttr(p *commonpb.Payload, into any) error {
	if p == nil || p.Data == nil {
		return nil
	}
	return converter.GetDefaultDataConverter().FromPayload(p, into)
}
