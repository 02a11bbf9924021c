package client

import (
	"context"
	"errors"
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

// StuckRetirementQuery is the visibility filter of retirements (RetireJob)
// running since before cutoff: a retirement takes seconds unless its store
// or, for one that discards, its bucket fails. It has no phase attribute:
// its start is the bound.
func StuckRetirementQuery(cutoff time.Time) string {
	return fmt.Sprintf(`WorkflowType = "%s" AND StartTime < "%s" AND ExecutionStatus = "Running"`,
		contract.RetireWorkflow, cutoff.UTC().Format(time.RFC3339))
}

// Kinds of stuck execution.
const (
	KindFinalization = "finalization"
	KindRetirement   = "retirement"
)

// Retiring is the phase ListStuckRetirements gives a retirement waiting for
// its store; one discarding the retired state is Discarding.
const Retiring contract.Phase = "Retiring"

// Stuck is one execution that has stayed in a running phase: Verifying (its
// store did not answer whether the reference landed; nothing is discarded
// until it does), Persisting (the bucket fails), and so on; or a retirement
// that outlasted the bound (Checkpoint 0).
type Stuck struct {
	// Kind is KindFinalization or KindRetirement.
	Kind       string         `json:"kind"`
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
	// LastError is the pending activity's last failure, as
	// DescribeWorkflowExecution reports it: empty while none failed, or
	// between a Verifying finalization's verifies.
	LastError string `json:"lastError,omitempty"`
}

// ListStuck lists the executions that have stayed in one running phase for
// longer than olderThan, oldest first as visibility orders them, each with
// its last error. Visibility lags the workflows by a moment: a finalization
// that just changed phase may show its former one.
func (c *Client) ListStuck(ctx context.Context, olderThan time.Duration) ([]Stuck, error) {
	out, err := c.list(ctx, "stuck finalizations", StuckQuery(time.Now().Add(-olderThan)), c.stuckOf)
	if err != nil {
		return nil, err
	}
	for i := range out {
		c.addLastError(ctx, &out[i])
	}
	return out, nil
}

// ListStuckRetirements lists the retirements running for longer than
// olderThan (StuckRetirementQuery), oldest first, each with its last
// error: Retiring while the store does not answer, Discarding while the
// retired state's deletes fail or wait for a finalization. They read the
// operator signals (Signalable).
func (c *Client) ListStuckRetirements(ctx context.Context, olderThan time.Duration) ([]Stuck, error) {
	out, err := c.list(ctx, "stuck retirements", StuckRetirementQuery(time.Now().Add(-olderThan)), retirementOf)
	if err != nil {
		return nil, err
	}
	for i := range out {
		c.addLastError(ctx, &out[i])
	}
	return out, nil
}

// list reads every page of a visibility query.
func (c *Client) list(ctx context.Context, what, query string, of func(*workflowpb.WorkflowExecutionInfo) (Stuck, error)) ([]Stuck, error) {
	var out []Stuck
	var token []byte
	for {
		resp, err := c.tc.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: query, NextPageToken: token})
		if err != nil {
			return nil, fmt.Errorf("list %s (%s): %w", what, query, err)
		}
		for _, info := range resp.GetExecutions() {
			s, err := of(info)
			if err != nil {
				return nil, fmt.Errorf("list %s: %w", what, err)
			}
			out = append(out, s)
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			return out, nil
		}
	}
}

// addLastError describes the execution for its pending activity's last
// failure, and a retirement's phase. A courtesy: one that ended since it
// was listed, or a describe that fails, leaves the entry as listed.
func (c *Client) addLastError(ctx context.Context, s *Stuck) {
	pending, err := c.PendingActivities(ctx, s.WorkflowID)
	if err != nil {
		if !errors.Is(err, ErrNotFound) && ctx.Err() == nil {
			c.log.Warn("stuck execution not described: no last error", "workflowId", s.WorkflowID, "error", err)
		}
		return
	}
	s.LastError = lastFailure(pending)
	if s.Kind == KindRetirement && len(pending) > 0 && pending[0].Type == discardRetiredActivity {
		s.Phase = contract.Discarding
	}
}

// discardRetiredActivity is the activity a discarding retirement waits in
// once the store retired the job (activities.DiscardRetired).
const discardRetiredActivity = "DiscardRetired"

// retirementOf reads a listed retirement: its identity from its workflow
// ID (contract.RetireRequest.WorkflowID), which names no checkpoint.
func retirementOf(info *workflowpb.WorkflowExecutionInfo) (Stuck, error) {
	s := Stuck{
		Kind:       KindRetirement,
		WorkflowID: info.GetExecution().GetWorkflowId(),
		RunID:      info.GetExecution().GetRunId(),
		StartTime:  info.GetStartTime().AsTime(),
		PhaseSince: info.GetStartTime().AsTime(),
		Phase:      Retiring,
	}
	// Another starter's ID (not ours) is listed all the same, without
	// its identity: it is stuck as much.
	parts := strings.Split(s.WorkflowID, "/")
	if len(parts) != 4 || parts[0] != "retire" {
		return s, nil
	}
	if epoch, err := strconv.ParseUint(parts[3], 10, 64); err == nil {
		s.Cluster, s.Job, s.Epoch = parts[1], parts[2], epoch
		s.Summary = fmt.Sprintf("retirement of %s/%s (epoch %d)", s.Cluster, s.Job, s.Epoch)
	}
	return s, nil
}

func (c *Client) stuckOf(info *workflowpb.WorkflowExecutionInfo) (Stuck, error) {
	s := Stuck{
		Kind:       KindFinalization,
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
