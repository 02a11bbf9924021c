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

// Each request below was accepted by the handle's own validation at
// e5e919a, and each one's discard deleted data it does not own (issue 10,
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
	savepoint.Savepoint, savepoint.MetadataKey, savepoint.ExclusivePrefix = true, "savepoints/sp-1/_metadata", "savepoints/sp-1/"
	assert.NoError(t, every.Check(savepoint))
}

func TestLayoutPerCluster(t *testing.T) {
	l, err := blobstate.ParseLayout("prod-eu=flink/prod-eu/checkpoints, prod-us=flink/prod-us/checkpoints/")
	require.NoError(t, err)
	assert.Equal(t, "prod-eu=flink/prod-eu/checkpoints,prod-us=flink/prod-us/checkpoints", l.String())
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
		"a=/abs", "a=../up", "a=handles/x", "a=x//y",
	} {
		_, err := blobstate.ParseLayout(spec)
		var inv *stores.InvalidError
		require.ErrorAs(t, err, &inv, "spec %q", spec)
		assert.Equal(t, "clusters", inv.Field, "spec %q", spec)
	}
}
