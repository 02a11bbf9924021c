package workflows_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/contracttest"
)

// Every payload of the recorded histories (real executions of earlier
// versions, recorded before requests named their owner, which is checked
// as if they did) is valid against the schemas, and every contentHash in
// their memos, written by earlier versions, is what ContentHash computes
// from the start input today.
func TestRecordedHistoriesMatchTheSchemas(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	total := map[string]int{}
	hashes := 0
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r, err := os.Open(f)
			require.NoError(t, err)
			defer r.Close()
			h, err := client.HistoryFromJSON(r, client.HistoryJSONOptions{})
			require.NoError(t, err)
			checked := contracttest.CheckLegacyHistory(t, h)
			require.NotEmpty(t, checked.Payloads, "the start input at least")
			for schema, n := range checked.Payloads {
				total[schema] += n
			}
			hashes += checked.ContentHashes
		})
	}
	t.Logf("validated %v; %d memo content hashes recomputed", total, hashes)
	for _, schema := range []string{
		"finalize-request.schema.json", "finalize-result.schema.json", "abandon-signal.schema.json",
		"coordinator-state.schema.json", "published-report.schema.json",
		"subsume-request.schema.json", "subsume-result.schema.json",
	} {
		assert.NotZero(t, total[schema], "the histories hold a payload of %s", schema)
	}
	assert.GreaterOrEqual(t, hashes, 10, "every recorded finalization's memo hash")
}

// ClaimEpoch's and LatestCheckpoint's restore points, in each state, are
// valid against restore-point.schema.json.
func TestRestorePointAnswersMatchTheSchema(t *testing.T) {
	for _, tc := range []struct {
		name      string
		published []uint64
		lose      uint64 // checkpoint whose metadata goes missing
		want      contract.RestoreState
	}{
		{name: "none", want: contract.RestoreNone},
		{name: "resolved", published: []uint64{1, 2}, want: contract.RestoreResolved},
		{name: "dangling with fallback", published: []uint64{1, 2}, lose: 2, want: contract.RestoreDangling},
		{name: "dangling alone", published: []uint64{1}, lose: 1, want: contract.RestoreDangling},
	} {
		for _, wf := range []string{contract.ClaimWorkflow, contract.LatestWorkflow} {
			t.Run(tc.name+"/"+wf, func(t *testing.T) {
				f := newFixture(t, 0)
				for _, n := range tc.published {
					req := f.publishDirect(n, false)
					if n == tc.lose {
						require.NoError(t, os.Remove(filepath.Join(f.dir, req.MetadataKey)))
					}
				}
				if wf == contract.ClaimWorkflow {
					f.env.ExecuteWorkflow(wf, contract.ClaimRequest{Cluster: job.Cluster, Job: job.Job, Epoch: 2, Owner: "jm-2"})
				} else {
					f.env.ExecuteWorkflow(wf, contract.LatestRequest{Cluster: job.Cluster, Job: job.Job})
				}
				require.NoError(t, f.env.GetWorkflowError())
				var rp contract.RestorePoint
				contracttest.DecodeChecked(t, "restore-point.schema.json", f.env.GetWorkflowResult, &rp)
				assert.Equal(t, tc.want, rp.State)
				if tc.lose == 2 {
					require.NotNil(t, rp.Fallback)
					assert.Equal(t, uint64(1), rp.Fallback.Checkpoint)
				}
			})
		}
	}
}

// A subsume's status query answers its phase.
func TestSubsumeStatusMatchesTheSchema(t *testing.T) {
	f := newFixture(t, 1)
	req := f.publishDirect(1, false)
	f.env.ExecuteWorkflow(contract.SubsumeWorkflow, subsumeRequest(f, req, 1))
	require.NoError(t, f.env.GetWorkflowError())
	v, err := f.env.QueryWorkflow(contract.StatusQuery)
	require.NoError(t, err)
	var phase string
	contracttest.DecodeChecked(t, "subsume-status.schema.json", v.Get, &phase)
	assert.Equal(t, "Discarded", phase)
}
