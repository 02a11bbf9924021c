package workflows_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/interceptor"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/workflows"
)

// Regression tests for issue 22's findings 3 and 4: a worker serving only
// c1, given a SubsumeCheckpoint of c2's newest checkpoint or a
// JobCoordinator of a c2 job, removed c2's references at b0bb845. Behind
// the tenant gate (the worker's interceptor) both are refused before any
// store call, and c2's references and data stay.
func TestUnservedClusterIsRefusedBeforeAnyStoreCall(t *testing.T) {
	other := stores.JobID{Cluster: "c2", Job: "j1"}
	starts := map[string]func(newest contract.FinalizeRequest) any{
		contract.SubsumeWorkflow: func(newest contract.FinalizeRequest) any {
			return workflows.SubsumeRequest{CheckpointID: newest.CheckpointID(), Epoch: 1, HandleKey: activities.HandleOf(newest).Key()}
		},
		contract.CoordinatorWorkflow: func(contract.FinalizeRequest) any {
			return contract.CoordinatorState{Cluster: other.Cluster, Job: other.Job, Epoch: 1}
		},
	}
	for name, start := range starts {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, 1)
			layout, err := blobstate.ParseLayout("c1=c1")
			require.NoError(t, err)
			f.acts.Layout = layout
			f.env.SetWorkerOptions(sdkworker.Options{Interceptors: []interceptor.WorkerInterceptor{activities.Gate{Layout: layout}.Interceptor()}})
			require.NoError(t, f.inner.ClaimEpoch(t.Context(), other, 1, "jm-1"))
			var reqs []contract.FinalizeRequest
			for n := uint64(1); n <= 3; n++ {
				req, err := jobmanager.Bucket{Dir: f.dir}.WriteCheckpoint(other, 1, n, false)
				require.NoError(t, err)
				key, err := f.states.Write(t.Context(), activities.HandleOf(req))
				require.NoError(t, err)
				require.NoError(t, f.inner.Publish(t.Context(), stores.Publication{CheckpointID: req.CheckpointID(), Epoch: 1,
					Reference: stores.Reference{Handle: key, Token: req.Token(), Attempt: 1}}))
				reqs = append(reqs, req)
			}

			// A coordinator passes on a report; one still running an hour
			// later is cancelled.
			f.env.RegisterDelayedCallback(func() {
				f.env.SignalWorkflow(contract.PublishedSignal, contract.PublishedReport{Cluster: other.Cluster, Job: other.Job, Epoch: 1, Checkpoint: 3})
			}, time.Second)
			f.env.RegisterDelayedCallback(f.env.CancelWorkflow, time.Hour)
			f.env.ExecuteWorkflow(name, start(reqs[2]))
			require.Error(t, f.env.GetWorkflowError())
			assert.Contains(t, f.env.GetWorkflowError().Error(), `tenant gate: invalid cluster: "c2" is not served`)
			refs, err := f.inner.List(t.Context(), other)
			require.NoError(t, err)
			assert.Len(t, refs, 3, "c2's references stay")
			for _, req := range reqs {
				assert.True(t, f.exists(req.MetadataKey), "c2's checkpoint %d stays", req.Checkpoint)
			}
		})
	}
}
