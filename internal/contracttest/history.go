package contracttest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// Checked is what CheckHistory validated.
type Checked struct {
	// Payloads counts the payloads validated, by schema file.
	Payloads map[string]int
	// ContentHashes counts the memo contentHash values found equal to the
	// hash of the execution's own start input.
	ContentHashes int
}

// CheckHistory validates every contract payload a workflow history holds
// against the schema workflows.json names for it: the start input, the
// result, signals received, continue-as-new inputs and children started
// and completed. For a finalization it also checks that each contentHash
// written to the memo is the ContentHash of the start input.
func CheckHistory(t testing.TB, h *historypb.History) Checked {
	t.Helper()
	return checkHistory(t, h, false)
}

// CheckLegacyHistory is CheckHistory for a history recorded before requests
// named their owner: a request payload without "owner" is checked as if it
// named one, every other rule as it stands.
func CheckLegacyHistory(t testing.TB, h *historypb.History) Checked {
	t.Helper()
	return checkHistory(t, h, true)
}

func checkHistory(t testing.TB, h *historypb.History, legacy bool) Checked {
	t.Helper()
	hc := historyCheck{t: t, contract: ContractOf(t), checked: Checked{Payloads: map[string]int{}}, legacy: legacy}
	for _, ev := range h.GetEvents() {
		hc.event(ev)
	}
	return hc.checked
}

// ownedRequests are the schemas of the requests that name their owner.
var ownedRequests = map[string]bool{
	"finalize-request.schema.json": true, "retire-request.schema.json": true, "subsume-request.schema.json": true,
}

// withOwner is a legacy request payload as if it named its owner.
func withOwner(data []byte) ([]byte, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return data, nil // not an object: the schema says so
	}
	if _, ok := fields["owner"]; ok {
		return data, nil
	}
	fields["owner"] = json.RawMessage(`"recorded-before-owners"`)
	return json.Marshal(fields)
}

// CheckExecution checks the history of the workflow's latest run, as the
// server holds it, like CheckHistory.
func CheckExecution(ctx context.Context, t testing.TB, c client.Client, workflowID string) Checked {
	t.Helper()
	h := &historypb.History{}
	it := c.GetWorkflowHistory(ctx, workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatalf("history of %s: %v", workflowID, err)
		}
		h.Events = append(h.Events, ev)
	}
	return CheckHistory(t, h)
}

// CheckQuery asks the workflow's status query and validates the answer,
// as the server carried it, against schema.
func CheckQuery(ctx context.Context, t testing.TB, c client.Client, workflowID, schema string) {
	t.Helper()
	v, err := c.QueryWorkflow(ctx, workflowID, "", contract.StatusQuery)
	if err != nil {
		t.Fatalf("query %s: %v", workflowID, err)
	}
	var raw json.RawMessage
	if err := v.Get(&raw); err != nil {
		t.Fatalf("query %s: decode: %v", workflowID, err)
	}
	Validate(t, schema, raw)
}

type historyCheck struct {
	t        testing.TB
	contract Contract
	checked  Checked
	// workflowType and hash are those of the execution the history is of.
	workflowType string
	hash         string
	// legacy: recorded before requests named their owner.
	legacy bool
}

func (hc *historyCheck) event(ev *historypb.HistoryEvent) {
	hc.t.Helper()
	at := fmt.Sprintf("event %d %s", ev.GetEventId(), ev.GetEventType())
	switch {
	case ev.GetWorkflowExecutionStartedEventAttributes() != nil:
		a := ev.GetWorkflowExecutionStartedEventAttributes()
		hc.workflowType = a.GetWorkflowType().GetName()
		in := hc.payload(at+" input", a.GetInput(), hc.workflow(at, hc.workflowType).Input)
		if hc.workflowType == contract.FinalizeWorkflow && in != nil {
			var req contract.FinalizeRequest
			if err := json.Unmarshal(in, &req); err != nil {
				hc.t.Errorf("%s: decode FinalizeRequest: %v", at, err)
			}
			hc.hash = req.ContentHash()
		}
		hc.memo(at, a.GetMemo())
	case ev.GetWorkflowPropertiesModifiedEventAttributes() != nil:
		hc.memo(at, ev.GetWorkflowPropertiesModifiedEventAttributes().GetUpsertedMemo())
	case ev.GetWorkflowExecutionCompletedEventAttributes() != nil:
		hc.result(at, hc.workflowType, ev.GetWorkflowExecutionCompletedEventAttributes().GetResult())
	case ev.GetWorkflowExecutionContinuedAsNewEventAttributes() != nil:
		a := ev.GetWorkflowExecutionContinuedAsNewEventAttributes()
		hc.payload(at+" input", a.GetInput(), hc.workflow(at, a.GetWorkflowType().GetName()).Input)
	case ev.GetWorkflowExecutionSignaledEventAttributes() != nil:
		a := ev.GetWorkflowExecutionSignaledEventAttributes()
		schema, ok := hc.workflow(at, hc.workflowType).Signals[a.GetSignalName()]
		switch {
		case !ok:
			hc.t.Errorf("%s: signal %q is not in the contract of %s", at, a.GetSignalName(), hc.workflowType)
		case schema == nil:
			if !empty(a.GetInput()) {
				hc.t.Errorf("%s: signal %q takes no payload, got %v", at, a.GetSignalName(), a.GetInput().GetPayloads())
			}
		default:
			hc.payload(at+" "+a.GetSignalName(), a.GetInput(), *schema)
		}
	case ev.GetStartChildWorkflowExecutionInitiatedEventAttributes() != nil:
		a := ev.GetStartChildWorkflowExecutionInitiatedEventAttributes()
		hc.payload(at+" input", a.GetInput(), hc.workflow(at, a.GetWorkflowType().GetName()).Input)
	case ev.GetChildWorkflowExecutionCompletedEventAttributes() != nil:
		a := ev.GetChildWorkflowExecutionCompletedEventAttributes()
		hc.result(at, a.GetWorkflowType().GetName(), a.GetResult())
	}
}

func (hc *historyCheck) workflow(at, name string) Workflow {
	hc.t.Helper()
	w, ok := hc.contract.Workflows[name]
	if !ok {
		hc.t.Errorf("%s: workflow type %q is not in workflows.json", at, name)
	}
	return w
}

func (hc *historyCheck) result(at, workflowType string, ps *commonpb.Payloads) {
	hc.t.Helper()
	w := hc.workflow(at, workflowType)
	if w.Result == nil {
		if !empty(ps) {
			hc.t.Errorf("%s: %s returns nothing, got %v", at, workflowType, ps.GetPayloads())
		}
		return
	}
	if len(ps.GetPayloads()) == 0 && w.ResultOptional != "" {
		return
	}
	hc.payload(at+" result", ps, *w.Result)
}

// payload validates the one payload of ps and returns its JSON.
func (hc *historyCheck) payload(at string, ps *commonpb.Payloads, schema string) []byte {
	hc.t.Helper()
	if len(ps.GetPayloads()) != 1 {
		hc.t.Errorf("%s: want one payload for %s, got %d", at, schema, len(ps.GetPayloads()))
		return nil
	}
	data, ok := jsonData(ps.GetPayloads()[0])
	if !ok {
		hc.t.Errorf("%s: payload encoding %q, want json/plain", at, ps.GetPayloads()[0].GetMetadata()["encoding"])
		return nil
	}
	checked := data
	if hc.legacy && ownedRequests[schema] {
		var err error
		if checked, err = withOwner(data); err != nil {
			hc.t.Errorf("%s: %v", at, err)
		}
	}
	if err := Check(schema, checked); err != nil {
		hc.t.Errorf("%s: %v", at, err)
	}
	hc.checked.Payloads[schema]++
	return data
}

// memo checks a contentHash the memo carries against the start input's.
func (hc *historyCheck) memo(at string, m *commonpb.Memo) {
	hc.t.Helper()
	p, ok := m.GetFields()[contract.MemoContentHash]
	if !ok || hc.workflowType != contract.FinalizeWorkflow {
		return
	}
	data, ok := jsonData(p)
	var hash string
	if !ok || json.Unmarshal(data, &hash) != nil {
		hc.t.Errorf("%s: memo %s is no JSON string", at, contract.MemoContentHash)
		return
	}
	if hash != hc.hash {
		hc.t.Errorf("%s: memo %s %s, but the start input hashes to %s", at, contract.MemoContentHash, hash, hc.hash)
		return
	}
	hc.checked.ContentHashes++
}

func jsonData(p *commonpb.Payload) ([]byte, bool) {
	return p.GetData(), string(p.GetMetadata()["encoding"]) == "json/plain"
}

// empty: no payload, or the one an SDK writes for a nil argument.
func empty(ps *commonpb.Payloads) bool {
	p := ps.GetPayloads()
	return len(p) == 0 || len(p) == 1 && string(p[0].GetMetadata()["encoding"]) == "binary/null"
}
