package client_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/e2e/harness"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

func TestClaimStaleEpoch(t *testing.T) {
	t.Parallel()
	env := harness.Start(t, harness.Options{})
	c := newClient(env, client.Options{})
	claim(t, c, env, 2)

	_, err := c.ClaimEpoch(ctx(t), contract.ClaimRequest{Cluster: env.Cluster, Job: env.Job, Epoch: 1, Owner: "jm-old"})
	require.ErrorIs(t, err, client.ErrStaleEpoch)
	require.ErrorIs(t, err, client.ErrRejected)
	var rejected *client.RejectedError
	require.ErrorAs(t, err, &rejected)
	assert.Equal(t, "Rejected.StaleEpoch", rejected.Type)
	assert.Equal(t, "claim/"+env.Cluster+"/j1/1", rejected.WorkflowID)

	// The same epoch by another owner is refused too; by its owner it is
	// success, so a caller that lost the answer claims again.
	_, err = c.ClaimEpoch(ctx(t), contract.ClaimRequest{Cluster: env.Cluster, Job: env.Job, Epoch: 2, Owner: "jm-other"})
	assert.ErrorIs(t, err, client.ErrStaleEpoch)
	claim(t, c, env, 2)

	st, err := env.Store.ReadJob(ctx(t), env.JobID())
	require.NoError(t, err)
	assert.Equal(t, uint64(2), st.Epoch)
	assert.Equal(t, jobmanager.Owner(2), st.Owner)
}

// Two owners claiming one epoch at once: exactly one wins, although both
// claims share one workflow ID.
func TestConcurrentClaimsOfOneEpoch(t *testing.T) {
	t.Parallel()
	env := harness.Start(t, harness.Options{})
	c := newClient(env, client.Options{})
	owners := []string{"jm-a", "jm-b", "jm-c"}
	errs := make([]error, len(owners))
	var wg sync.WaitGroup
	for i, owner := range owners {
		wg.Go(func() {
			_, errs[i] = c.ClaimEpoch(ctx(t), contract.ClaimRequest{Cluster: env.Cluster, Job: env.Job, Epoch: 1, Owner: owner})
		})
	}
	wg.Wait()

	st, err := env.Store.ReadJob(ctx(t), env.JobID())
	require.NoError(t, err)
	for i, owner := range owners {
		if owner == st.Owner {
			assert.NoError(t, errs[i], owner)
		} else {
			assert.ErrorIs(t, errs[i], client.ErrStaleEpoch, owner)
		}
	}
}

func TestClaimInvalidRequest(t *testing.T) {
	t.Parallel()
	c := client.New(nil, client.Options{}) // never reached: validation comes first
	_, err := c.ClaimEpoch(t.Context(), contract.ClaimRequest{Cluster: "C1", Job: "j1", Epoch: 1, Owner: "jm"})
	require.ErrorIs(t, err, client.ErrInvalidRequest)
	var invalid *stores.InvalidError
	require.ErrorAs(t, err, &invalid)
	assert.Equal(t, "cluster", invalid.Field)

	err = c.Retire(t.Context(), contract.RetireRequest{Cluster: "c1", Job: "j1"})
	require.ErrorAs(t, err, &invalid)
	assert.Equal(t, "epoch", invalid.Field)
}

func TestRetire(t *testing.T) {
	t.Parallel()
	env := harness.Start(t, harness.Options{})
	c := newClient(env, client.Options{})
	claim(t, c, env, 1)
	f, err := c.Finalize(ctx(t), env.Checkpoint(1, 1))
	require.NoError(t, err)
	res, err := f.Wait(ctx(t))
	require.NoError(t, err)
	require.Equal(t, contract.Published, res.Phase)
	claim(t, c, env, 2)

	err = c.Retire(ctx(t), contract.RetireRequest{Cluster: env.Cluster, Job: env.Job, Epoch: 1, Owner: jobmanager.Owner(1)})
	require.ErrorIs(t, err, client.ErrStaleEpoch, "a deposed epoch never retires")
	require.NoError(t, c.Retire(ctx(t), contract.RetireRequest{Cluster: env.Cluster, Job: env.Job, Epoch: 2, Owner: jobmanager.Owner(2)}))
	require.NoError(t, c.Retire(ctx(t), contract.RetireRequest{Cluster: env.Cluster, Job: env.Job, Epoch: 2, Owner: jobmanager.Owner(2), DiscardCheckpoints: true}), "retiring again is success; the first choice stands")

	entry := env.Entry(1)
	require.NotNil(t, entry.Tombstone, "the reference is tombstoned")
	assert.Equal(t, stores.ReasonRetained, entry.Tombstone.Reason, "retained by default")
	_, err = c.ClaimEpoch(ctx(t), contract.ClaimRequest{Cluster: env.Cluster, Job: env.Job, Epoch: 2, Owner: jobmanager.Owner(2)})
	assert.ErrorIs(t, err, client.ErrRetired, "the retired epoch claims nothing again")

	// A resubmission under the same job ID claims above at once: nothing to
	// restore (the retained checkpoint is the operator's, restored with -s),
	// and the retained state stays where it is.
	rp, err := c.ClaimEpoch(ctx(t), contract.ClaimRequest{Cluster: env.Cluster, Job: env.Job, Epoch: 3, Owner: "jm"})
	require.NoError(t, err)
	assert.Equal(t, contract.RestoreNone, rp.State)
	assert.Equal(t, uint64(1), rp.Watermark, "its checkpoint IDs go above the retired ones")
	assert.Equal(t, stores.ReasonRetained, env.Entry(1).Tombstone.Reason)
}
