package contracttest

import (
	"encoding/json"
	"fmt"
	"testing"

	commonpb "go.temporal.io/api/common/v1"
	historypb "go.temporal.io/api/history/v1"

	"github.com/checkpoint-finalizer/finalizer/workflows"
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
	hc := historyCheck{t: t, contract: ContractOf(t), checked: Checked{Payloads: map[string]int{}}}
	for _, ev := range h.GetEvents() {
		hc.event(ev)
	}
	return hc.checked
}

type historyCheck struct {
	t        testing.TB
	contract Contract
	checked  Checked
	// workflowType and hash are those of the execution the history is of.
	workflowType string
	hash         string
}

func (hc *historyCheck) event(ev *historypb.HistoryEvent) {
	hc.t.Helper()
	at := fmt.Sprintf("event %d %s", ev.GetEventId(), ev.GetEventType())
	switch {
	case ev.GetWorkflowExecutionStartedEventAttributes() != nil:
		a := ev.GetWorkflowExecutionStartedEventAttributes()
		hc.workflowType = a.GetWorkflowType().GetName()
		in := hc.payload(at+" input", a.GetInput(), hc.workflow(at, hc.workflowType).Input)
		if hc.workflowType == workflows.FinalizeWorkflow && in != nil {
			var req workflows.FinalizeRequest
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
			if len(a.GetInput().GetPayloads()) != 0 {
				hc.t.Errorf("%s: signal %q takes no payload, got %d", at, a.GetSignalName(), len(a.GetInput().GetPayloads()))
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
		if len(ps.GetPayloads()) != 0 {
			hc.t.Errorf("%s: %s returns nothing, got %d payloads", at, workflowType, len(ps.GetPayloads()))
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
	if err := Check(schema, data); err != nil {
		hc.t.Errorf("%s: %v", at, err)
	}
	hc.checked.Payloads[schema]++
	return data
}

// memo checks a contentHash the memo carries against the start input's.
func (hc *historyCheck) memo(at string, m *commonpb.Memo) {
	hc.t.Helper()
	p, ok := m.GetFields()[workflows.MemoContentHash]
	if !ok || hc.workflowType != workflows.FinalizeWorkflow {
		return
	}
	data, ok := jsonData(p)
	var hash string
	if !ok || json.Unmarshal(data, &hash) != nil {
		hc.t.Errorf("%s: memo %s is no JSON string", at, workflows.MemoContentHash)
		return
	}
	if hash != hc.hash {
		hc.t.Errorf("%s: memo %s %s, but the start input hashes to %s", at, workflows.MemoContentHash, hash, hc.hash)
		return
	}
	hc.checked.ContentHashes++
}

func jsonData(p *commonpb.Payload) ([]byte, bool) {
	return p.GetData(), string(p.GetMetadata()["encoding"]) == "json/plain"
}
