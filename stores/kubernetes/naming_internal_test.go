package kubernetes

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

func TestConfigMapNameNeverCollides(t *testing.T) {
	// With '-' as the separator these pairs would share a name.
	pairs := [][2]stores.JobID{
		{{Cluster: "a-b", Job: "c"}, {Cluster: "a", Job: "b-c"}},
		{{Cluster: "prod", Job: "eu-1"}, {Cluster: "prod-eu", Job: "1"}},
		{{Cluster: "x", Job: "checkpoints"}, {Cluster: "x-checkpoints", Job: "checkpoints"}},
	}
	for _, p := range pairs {
		a, err := ConfigMapName(p[0])
		require.NoError(t, err)
		b, err := ConfigMapName(p[1])
		require.NoError(t, err)
		assert.NotEqual(t, a, b, "%v and %v", p[0], p[1])
	}
	name, err := ConfigMapName(stores.JobID{Cluster: "prod-eu", Job: "job-1"})
	require.NoError(t, err)
	assert.Equal(t, "prod-eu.job-1.checkpoints", name)
}

func TestConfigMapNameLongestIsValid(t *testing.T) {
	long := strings.Repeat("a", stores.MaxNameLength)
	name, err := ConfigMapName(stores.JobID{Cluster: long, Job: long})
	require.NoError(t, err)
	assert.LessOrEqual(t, len(name), 253)
}

func TestConfigMapNameRejectsInvalidIDs(t *testing.T) {
	for _, j := range []stores.JobID{{Cluster: "a.b", Job: "c"}, {Cluster: "a", Job: "B"}, {Cluster: "", Job: "c"}, {Cluster: "a", Job: "-c"}} {
		_, err := ConfigMapName(j)
		assert.ErrorIs(t, err, stores.ErrInvalid, "%v", j)
	}
}

func TestCheckpointKeys(t *testing.T) {
	for _, id := range []uint64{1, 42, 1<<63 - 1, 1<<64 - 1} {
		key := checkpointKey(id)
		got, ours, err := parseCheckpointKey(key)
		require.NoError(t, err)
		assert.True(t, ours)
		assert.Equal(t, id, got)
	}
	assert.Equal(t, "checkpointID-0000000000000000042", checkpointKey(42))

	_, ours, err := parseCheckpointKey("unrelated")
	assert.NoError(t, err)
	assert.False(t, ours)
	for _, bad := range []string{"checkpointID-42", "checkpointID-", "checkpointID-000000000000000000x", "checkpointID-0000000000000000000"} {
		_, ours, err := parseCheckpointKey(bad)
		assert.True(t, ours, bad)
		assert.Error(t, err, "%q must not alias a checkpoint", bad)
	}
}
