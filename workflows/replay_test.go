package workflows_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/checkpoint-finalizer/finalizer/contract"
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

// TestReplayPathAskedAtStart: the start memo's path (contract.MemoPath)
// decides the finalization's path only where the first workflow task
// recorded no version of its own. An execution a worker of version 1 or 2
// recorded a marker for replays on that marker whatever its memo says
// (such a worker ran the first task of a start that asked for the path),
// and a history recorded without a marker because its start asked for the
// path does not replay once the memo is taken away.
func TestReplayPathAskedAtStart(t *testing.T) {
	replayer := worker.NewWorkflowReplayer()
	workflows.Register(replayer)
	for _, pattern := range []string{"v1-finalize-*.json", "v2-finalize-*.json"} {
		files, err := filepath.Glob(filepath.Join("testdata", "histories", pattern))
		require.NoError(t, err)
		require.NotEmpty(t, files, pattern)
		for _, f := range files {
			t.Run("asked/"+filepath.Base(f), func(t *testing.T) {
				h := readHistory(t, f)
				setPathMemo(t, h, true)
				require.NoError(t, replayer.ReplayWorkflowHistory(nil, h))
			})
		}
	}
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "finalize-*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run("unasked/"+filepath.Base(f), func(t *testing.T) {
			h := readHistory(t, f)
			setPathMemo(t, h, false)
			require.Error(t, replayer.ReplayWorkflowHistory(nil, h), "replayed as if its start had asked for no path")
		})
	}
}

func readHistory(t *testing.T, path string) *historypb.History {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var h historypb.History
	require.NoError(t, protojson.Unmarshal(b, &h))
	return &h
}

// setPathMemo sets (or, with asked false, removes) the start memo's path.
func setPathMemo(t *testing.T, h *historypb.History, asked bool) {
	t.Helper()
	start := h.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes()
	require.NotNil(t, start)
	_, had := start.GetMemo().GetFields()[contract.MemoPath]
	require.Equal(t, !asked, had, "the recorded start's memo path")
	if !asked {
		delete(start.Memo.Fields, contract.MemoPath)
		return
	}
	p, err := converter.GetDefaultDataConverter().ToPayload(contract.PathVersion)
	require.NoError(t, err)
	if start.Memo == nil {
		start.Memo = &commonpb.Memo{}
	}
	if start.Memo.Fields == nil {
		start.Memo.Fields = map[string]*commonpb.Payload{}
	}
	start.Memo.Fields[contract.MemoPath] = p
}
