package faultharness

import "github.com/checkpoint-finalizer/finalizer/contract"

// NaiveWorkflow is the name the harness registers naive.Finalize under:
// never the contract's FinalizeCheckpoint, so no caller can reach it by
// mistake.
const NaiveWorkflow = "FaultHarnessNaiveFinalize"

// naiveWorkflowID keeps naive executions apart from the contract's IDs.
func naiveWorkflowID(req contract.FinalizeRequest) string { return "naive-" + req.WorkflowID() }
