package faultharness

import (
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/world"
)

// NaiveWorkflow is the name the harness registers naive.Finalize under:
// never the contract's FinalizeCheckpoint, so no caller can reach it by
// mistake.
const NaiveWorkflow = world.NaiveWorkflow

// naiveWorkflowID keeps naive executions apart from the contract's IDs.
func naiveWorkflowID(req contract.FinalizeRequest) string { return "naive-" + req.WorkflowID() }
