package storetest

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
)

// linearizabilityModel is the sequential specification for porcupine:
// step over jobModel, one partition per job. jobModel is comparable, so
// porcupine's default == compares states.
func linearizabilityModel() porcupine.Model {
	return porcupine.Model{
		Partition: partitionByJob,
		Init:      func() any { return jobModel{} },
		Step: func(state, input, output any) (bool, any) {
			return step(state.(jobModel), input.(call), output.(answer))
		},
		DescribeOperation: func(input, output any) string { return describeCall(input.(call), output.(answer)) },
		DescribeState:     func(state any) string { return describeModel(state.(jobModel)) },
	}
}

// partitionByJob splits the history by job: no call touches two jobs.
func partitionByJob(history []porcupine.Operation) [][]porcupine.Operation {
	var parts [][]porcupine.Operation
	for _, job := range linearizabilityJobs {
		var part []porcupine.Operation
		for _, op := range history {
			if op.Input.(call).Job == job {
				part = append(part, op)
			}
		}
		parts = append(parts, part)
	}
	return parts
}

// checkLinearizable fails the test unless porcupine finds the history
// linearizable within linCheckTimeout. On a violation it writes porcupine's
// visualization to a file outside the repository and logs where the
// search got stuck.
func checkLinearizable(t *testing.T, ops []porcupine.Operation, seed uint64) {
	t.Helper()
	model := linearizabilityModel()
	switch res := porcupine.CheckOperationsTimeout(model, ops, linCheckTimeout); res {
	case porcupine.Ok:
		t.Logf("linearizable: %d calls", len(ops))
		return
	case porcupine.Unknown:
		t.Fatalf("seed %d: porcupine did not decide within %s whether %d calls are linearizable: "+
			"a timeout is a failure, not a pass; shrink the workload or raise linCheckTimeout", seed, linCheckTimeout, len(ops))
	}
	res, info := porcupine.CheckOperationsVerbose(model, ops, linCheckTimeout)
	where := "no visualization: " + string(res)
	if f, err := os.CreateTemp("", "porcupine-*.html"); err == nil {
		_ = f.Close()
		where = f.Name()
		if err := porcupine.VisualizePath(model, info, where); err != nil {
			where = fmt.Sprintf("visualization failed: %v", err)
		}
	}
	t.Fatalf("seed %d: NOT LINEARIZABLE with respect to stores/decide.go (%d calls); porcupine's visualization: %s\n%s",
		seed, len(ops), where, explain(model, info, ops))
}

// explain describes, for each job whose history could not be linearized,
// the longest linearization porcupine found, the state it ends in, and the
// calls none of which could come next.
func explain(model porcupine.Model, info porcupine.LinearizationInfo, ops []porcupine.Operation) string {
	var b strings.Builder
	parts := partitionByJob(ops)
	for p, partials := range info.PartialLinearizationsOperations() {
		var longest []porcupine.Operation
		for _, l := range partials {
			if len(l) > len(longest) {
				longest = l
			}
		}
		if len(longest) == len(parts[p]) {
			continue
		}
		state := model.Init()
		for _, op := range longest {
			_, state = model.Step(state, op.Input, op.Output)
		}
		fmt.Fprintf(&b, "job %s: longest linearization: %d calls, ending in %s\n",
			linearizabilityJobs[p], len(longest), model.DescribeState(state))
		for _, op := range longest[max(0, len(longest)-8):] {
			fmt.Fprintf(&b, "    ... %s\n", describeOperation(op))
		}
		for _, op := range stuck(parts[p], longest) {
			ok, _ := model.Step(state, op.Input, op.Output)
			fmt.Fprintf(&b, "  could come next (step ok %t): %s\n", ok, describeOperation(op))
		}
	}
	return b.String()
}

// stuck returns the calls of a job's history left out of a partial
// linearization that were made before any of them returned: the
// candidates for its next step.
func stuck(history, done []porcupine.Operation) []porcupine.Operation {
	type id struct {
		client int
		call   int64
	}
	idOf := func(op porcupine.Operation) id { return id{op.ClientId, op.Call} }
	in := map[id]bool{}
	for _, op := range done {
		in[idOf(op)] = true
	}
	var rest []porcupine.Operation
	var first int64 = possiblyApplied
	for _, op := range history {
		if !in[idOf(op)] {
			rest = append(rest, op)
			first = min(first, op.Return)
		}
	}
	var next []porcupine.Operation
	for _, op := range rest {
		if op.Call <= first {
			next = append(next, op)
		}
	}
	return next
}

func describeOperation(op porcupine.Operation) string {
	return fmt.Sprintf("client %d [%.3fms..%.3fms] %s", op.ClientId, float64(op.Call)/1e6, float64(op.Return)/1e6,
		describeCall(op.Input.(call), op.Output.(answer)))
}
