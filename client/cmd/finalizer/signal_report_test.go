package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A batch with one signal not sent exits 1 (repeat), never 0; one whose
// only others were skipped exits 0.
func TestSignalReportPartialFailure(t *testing.T) {
	rep := signalReport{Signal: "retry-now", OlderThan: "5m0s", Results: []signalResult{
		{WorkflowID: "finalize/c/j/1/1", Outcome: outcomeSignalled},
		{WorkflowID: "finalize/c/j/1/2", Outcome: outcomeFailed, Detail: "connection lost"},
		{WorkflowID: "finalize/c/j/1/3", Outcome: outcomeSkipped, Detail: notReadIn("Persisting")},
	}}
	err := rep.err()
	assert.ErrorIs(t, err, errSignalsFailed)
	assert.Equal(t, exitError, exitCode(err))
	assert.Contains(t, err.Error(), "1 of 3 failed")
	assert.Contains(t, rep.text(false), "retry-now: 1 signalled, 1 skipped, 1 failed")

	rep.Results = append(rep.Results[:1], rep.Results[2])
	assert.NoError(t, rep.err())
}
