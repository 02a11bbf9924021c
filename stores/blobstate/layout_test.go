package blobstate_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

func layoutHandle(cluster, job string, n uint64, prefix, metadata string) blobstate.Handle {
	return blobstate.Handle{
		CheckpointID: stores.CheckpointID{JobID: stores.JobID{Cluster: cluster, Job: job}, Checkpoint: n},
		Epoch:        1, MetadataKey: metadata, MetadataSHA256: sha, ExclusivePrefix: prefix,
	}
}

const sha = "0000000000000000000000000000000000000000000000000000000000000000"

// Each request below was accepted by the handle's own validation before
// the layout existed, and each one's discard deleted data it does not own (issue 10,
// finding 2). The layout refuses them, naming the field and the rule.
func TestLayoutRefusesAnotherCheckpointsData(t *testing.T) {
	every, err := blobstate.ParseLayout("*")
	require.NoError(t, err)
	cases := []struct {
		name  string
		h     blobstate.Handle
		field string
	}{
		{"another job's directory", layoutHandle("c1", "job-x", 5, "c1/job-y/chk-5/", "c1/job-y/chk-5/_metadata"), "exclusivePrefix"},
		{"another cluster's directory", layoutHandle("c1", "job-x", 5, "other/job-x/chk-5/", "other/job-x/chk-5/_metadata"), "exclusivePrefix"},
		{"a nested directory", layoutHandle("c1", "job-x", 15, "c1/job-x/chk-5/y/chk-15/", "c1/job-x/chk-5/y/chk-15/_metadata"), "exclusivePrefix"},
		{"a cluster named like a checkpoint", layoutHandle("c1", "job-x", 6, "chk-6/", "chk-6/_metadata"), "exclusivePrefix"},
		{"metadata in a nested checkpoint", layoutHandle("c1", "job-x", 5, "c1/job-x/chk-5/", "c1/job-x/chk-5/chk-6/_metadata"), "metadataKey"},
		{"a savepoint inside a checkpoint", blobstate.Handle{
			CheckpointID: stores.CheckpointID{JobID: stores.JobID{Cluster: "c1", Job: "job-x"}, Checkpoint: 9}, Epoch: 1,
			MetadataKey: "c1/job-y/chk-3/_metadata", MetadataSHA256: sha, Savepoint: true,
		}, "metadataKey"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := every.Check(tc.h)
			var inv *stores.InvalidError
			require.True(t, errors.As(err, &inv), "accepted: %v", err)
			assert.Equal(t, tc.field, inv.Field)
		})
	}

	own := layoutHandle("c1", "job-x", 5, "c1/job-x/chk-5/", "c1/job-x/chk-5/_metadata")
	assert.NoError(t, every.Check(own))
	savepoint := own
	savepoint.Savepoint, savepoint.MetadataKey, savepoint.ExclusivePrefix = true, "c1/savepoints/sp-1/_metadata", "c1/savepoints/sp-1/"
	assert.NoError(t, every.Check(savepoint))
}

func TestLayoutPerCluster(t *testing.T) {
	l, err := blobstate.ParseLayout("prod-eu=flink/prod-eu/checkpoints:flink/prod-eu/savepoints/, prod-us=flink/prod-us/checkpoints/")
	require.NoError(t, err)
	assert.Equal(t, "prod-eu=flink/prod-eu/checkpoints:flink/prod-eu/savepoints,prod-us=flink/prod-us/checkpoints", l.String())
	dir, err := l.CheckpointDir(stores.CheckpointID{JobID: stores.JobID{Cluster: "prod-eu", Job: "j1"}, Checkpoint: 42})
	require.NoError(t, err)
	assert.Equal(t, "flink/prod-eu/checkpoints/j1/chk-42/", dir)

	err = l.Serves("staging")
	var inv *stores.InvalidError
	require.ErrorAs(t, err, &inv)
	assert.Equal(t, "cluster", inv.Field)
	assert.Contains(t, inv.Rule, "not served")

	sp := blobstate.Handle{
		CheckpointID: stores.CheckpointID{JobID: stores.JobID{Cluster: "prod-eu", Job: "j1"}, Checkpoint: 7}, Epoch: 1,
		MetadataKey: "flink/prod-us/checkpoints/j2/chk-3/_metadata", MetadataSHA256: sha, Savepoint: true,
	}
	require.ErrorAs(t, l.Check(sp), &inv, "a savepoint inside another cluster's checkpoint")
	sp.MetadataKey = "flink/prod-eu/savepoints/sp-7/_metadata"
	assert.NoError(t, l.Check(sp))
}

func TestParseLayoutRefuses(t *testing.T) {
	for _, spec := range []string{
		"", "prod-eu", "Prod=x", "a=x,a=y", "a=x,b=x/y", "a=x/y,b=x", "a=x,b=x",
		"a=/abs", "a=../up", "a=handles/x", "a=kept/x", "a=x:kept/sp", "a=x//y",
	} {
		_, err := blobstate.ParseLayout(spec)
		var inv *stores.InvalidError
		require.ErrorAs(t, err, &inv, "spec %q", spec)
		assert.Equal(t, "clusters", inv.Field, "spec %q", spec)
	}
}

// Issue 22, finding 6: a savepoint's metadata, outside its own checkpoint
// directory, is read only under its cluster's configured savepoints
// directory (with "*", under "<cluster>/"). Before, a c1 savepoint
// naming c2's checkpoint was accepted by a worker serving c1 alone, whose
// layout knew nothing of c2's directories.
func TestLayoutKeepsSavepointsInTheirClustersDirectories(t *testing.T) {
	savepoint := func(cluster, metadata string) blobstate.Handle {
		return blobstate.Handle{
			CheckpointID: stores.CheckpointID{JobID: stores.JobID{Cluster: cluster, Job: "j1"}, Checkpoint: 9}, Epoch: 1,
			MetadataKey: metadata, MetadataSHA256: sha, Savepoint: true,
		}
	}
	refused := func(t *testing.T, l blobstate.Layout, h blobstate.Handle, expected string) {
		t.Helper()
		var inv *stores.InvalidError
		require.ErrorAs(t, l.Check(h), &inv, "accepted %s", h.MetadataKey)
		assert.Equal(t, "metadataKey", inv.Field)
		assert.Contains(t, inv.Rule, expected)
	}

	only, err := blobstate.ParseLayout("c1=c1")
	require.NoError(t, err)
	refused(t, only, savepoint("c1", "c2/j1/chk-5/_metadata"), `"c1/j1/chk-9/"`)
	refused(t, only, savepoint("c1", "c1-savepoints/sp-1/_metadata"), "no savepoints directory")
	assert.NoError(t, only.Check(savepoint("c1", "c1/j1/chk-9/_metadata")), "in its own checkpoint directory")

	withSavepoints, err := blobstate.ParseLayout("c1=c1:c1-savepoints,c2=c2:savepoints/c2")
	require.NoError(t, err)
	assert.Equal(t, "c1=c1:c1-savepoints,c2=c2:savepoints/c2", withSavepoints.String())
	assert.NoError(t, withSavepoints.Check(savepoint("c1", "c1-savepoints/sp-1/_metadata")))
	refused(t, withSavepoints, savepoint("c1", "c2/j1/chk-5/_metadata"), `"c1-savepoints/"`)
	refused(t, withSavepoints, savepoint("c1", "savepoints/c2/sp-2/_metadata"), `"c1-savepoints/"`)

	every, err := blobstate.ParseLayout("*")
	require.NoError(t, err)
	assert.NoError(t, every.Check(savepoint("c1", "c1/savepoints/sp-1/_metadata")))
	refused(t, every, savepoint("c1", "c2/savepoints/sp-1/_metadata"), `"c1/"`)
	refused(t, every, savepoint("c1", "savepoints/sp-1/_metadata"), `"c1/"`)
}

// Savepoints directories may not nest in any checkpoints or savepoints
// directory: no request could then name one cluster's data as another's.
func TestParseLayoutRefusesNestedSavepoints(t *testing.T) {
	for _, spec := range []string{"a=x:x/sp", "a=x:y,b=y/z", "a=x:y,b=z:y", "a=x:", "a=x:y:z", "a=x:../y"} {
		_, err := blobstate.ParseLayout(spec)
		var inv *stores.InvalidError
		require.ErrorAs(t, err, &inv, "spec %q", spec)
		assert.Equal(t, "clusters", inv.Field, "spec %q", spec)
	}
}

func TestLayoutClusters(t *testing.T) {
	l, err := blobstate.ParseLayout("b=flink/b,a=flink/a:flink/a-sp")
	require.NoError(t, err)
	names, all := l.Clusters()
	assert.Equal(t, []string{"a", "b"}, names)
	assert.False(t, all)
	l, err = blobstate.ParseLayout(blobstate.AnyCluster)
	require.NoError(t, err)
	names, all = l.Clusters()
	assert.Empty(t, names)
	assert.True(t, all)
}
