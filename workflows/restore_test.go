package workflows_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

func (f *fixture) claim(epoch uint64, owner string) (contract.RestorePoint, error) {
	f.t.Helper()
	f.env.ExecuteWorkflow(contract.ClaimWorkflow, contract.ClaimRequest{Cluster: job.Cluster, Job: job.Job, Epoch: epoch, Owner: owner})
	require.True(f.t, f.env.IsWorkflowCompleted())
	var rp contract.RestorePoint
	if err := f.env.GetWorkflowError(); err != nil {
		return rp, err
	}
	require.NoError(f.t, f.env.GetWorkflowResult(&rp))
	return rp, nil
}

// A newer claim that lands between the claim and its read leaves the
// first claimant without a restore point: it is deposed already.
func TestClaimDeposedBeforeItsReadIsRefused(t *testing.T) {
	f := newFixture(t, 0)
	f.env.SetOnActivityCompletedListener(func(info *activity.Info, _ converter.EncodedValue, err error) {
		if info.ActivityType.Name == "ClaimEpoch" && err == nil {
			require.NoError(t, f.inner.ClaimEpoch(context.Background(), job, 3, "jm-3"))
		}
	})
	_, err := f.claim(2, "jm-2")
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	assert.Equal(t, "Rejected.StaleEpoch", app.Type())
}

// A handle that names another checkpoint's data is never offered as a
// restore point, however well its metadata resolves.
func TestRestorePointRefusesAForeignHandle(t *testing.T) {
	f := newFixture(t, 0)
	f.publishDirect(1, false)
	two := f.publishDirect(2, false)
	// Checkpoint 3's reference points at checkpoint 2's handle, as a hand
	// edit of the HA store would.
	require.NoError(t, f.inner.Publish(context.Background(), stores.Publication{
		CheckpointID: stores.CheckpointID{JobID: job, Checkpoint: 3}, Epoch: 1,
		Reference: stores.Reference{Handle: activities.HandleOf(two).Key(), Token: "hand-edit", Attempt: 1},
	}))
	rp, err := f.claim(2, "jm-2")
	require.NoError(t, err)
	assert.Equal(t, contract.RestoreDangling, rp.State)
	assert.Equal(t, contract.ProblemHandleForeign, rp.Dangling)
	require.NotNil(t, rp.Fallback)
	assert.Equal(t, uint64(2), rp.Fallback.Checkpoint)
}
