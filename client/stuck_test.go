package client_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/e2e/harness"
)

// A finalization whose store never answers parks in Verifying; ListStuck
// finds it once it has been there longer than the threshold, and never
// lists a healthy one.
func TestListStuckFindsParkedVerifying(t *testing.T) {
	t.Parallel()
	down := harness.Start(t, harness.Options{WrapReferences: func(r activities.References) activities.References {
		return harness.Unanswering{References: r}
	}})
	healthy := harness.Start(t, harness.Options{})
	cd, ch := newClient(down, client.Options{}), newClient(healthy, client.Options{})
	claim(t, cd, down, 1)
	claim(t, ch, healthy, 1)

	stuck, err := cd.Finalize(ctx(t), down.Checkpoint(1, 5))
	require.NoError(t, err)
	ok, err := ch.Finalize(ctx(t), healthy.Checkpoint(1, 5))
	require.NoError(t, err)
	res, err := ok.Wait(ctx(t))
	require.NoError(t, err)
	require.Equal(t, contract.Published, res.Phase)

	require.Eventually(t, func() bool {
		st, err := stuck.Status(ctx(t))
		return err == nil && st.Phase == contract.Verifying
	}, 30*time.Second, 100*time.Millisecond, "the finalization over an unanswering store reaches Verifying")
	parked := time.Now()

	list, err := cd.ListStuck(ctx(t), time.Hour)
	require.NoError(t, err)
	assert.Nil(t, find(list, stuck.WorkflowID), "not listed before the threshold")

	var found *client.Stuck
	require.Eventually(t, func() bool {
		list, err := cd.ListStuck(ctx(t), time.Second)
		require.NoError(t, err)
		assert.Nil(t, find(list, ok.WorkflowID), "a Published finalization is never stuck")
		found = find(list, stuck.WorkflowID)
		return found != nil
	}, 30*time.Second, 200*time.Millisecond)
	t.Logf("listed as stuck %s after it reached Verifying (threshold 1s)", time.Since(parked).Round(time.Millisecond))

	assert.Equal(t, stuck.RunID, found.RunID)
	assert.Equal(t, down.Cluster, found.Cluster)
	assert.Equal(t, "j1", found.Job)
	assert.Equal(t, uint64(1), found.Epoch)
	assert.Equal(t, uint64(5), found.Checkpoint)
	assert.Equal(t, contract.Verifying, found.Phase)
	assert.Equal(t, "embedded", found.StoreKind)
	assert.Equal(t, "checkpoint 5 of "+down.Cluster+"/j1 (epoch 1)", found.Summary)
	assert.WithinDuration(t, time.Now(), found.PhaseSince, 30*time.Second)

	st, err := stuck.Status(ctx(t))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, st.Verifications, 1)
	assert.Contains(t, st.LastError, harness.ErrUnreachable.Error())
	assert.True(t, down.Exists(down.Cluster+"/j1/chk-5/data-0"), "nothing is discarded while Verifying")

	// An operator gives up on the store: Abandoned, the state kept.
	require.NoError(t, stuck.Abandon(ctx(t), "store decommissioned"))
	res, err = stuck.Wait(ctx(t))
	require.NoError(t, err)
	assert.Equal(t, contract.Abandoned, res.Phase)
	assert.Equal(t, "store decommissioned", res.Reason)
	assert.True(t, down.Exists(down.Cluster+"/j1/chk-5/data-0"))
}

func find(list []client.Stuck, workflowID string) *client.Stuck {
	i := slices.IndexFunc(list, func(s client.Stuck) bool { return s.WorkflowID == workflowID })
	if i < 0 {
		return nil
	}
	return &list[i]
}
