package workflows_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"

	"github.com/checkpoint-finalizer/finalizer/workflows"
	"github.com/checkpoint-finalizer/finalizer/workflows/reconcile"
)

// TestReplayRecordedHistories replays histories recorded from real
// executions (go test ./e2e -record-histories): a change that
// makes the workflows decide differently on the same history fails here
// before it breaks running executions. The replayer registers every
// workflow a worker does (the finalizer's and the reconciler's), so a
// history of any of them replays here.
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 7, "recorded histories")
	replayer := worker.NewWorkflowReplayer()
	workflows.Register(replayer)
	reconcile.Register(replayer)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			require.NoError(t, replayer.ReplayWorkflowHistoryFromJSONFile(nil, f))
		})
	}
}
