package zookeeper_test

import (
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/storetest"
	"github.com/checkpoint-finalizer/finalizer/stores/zookeeper"
)

// tampered is a job at epoch 7 with checkpoint 5 published, whose nodes a
// raw client then overwrites.
func tampered(t *testing.T) (*zookeeper.Store, *zk.Conn, string) {
	t.Helper()
	root := uniqueRoot()
	s := open(t, config(serverAddr(t), root))
	require.NoError(t, s.ClaimEpoch(t.Context(), job, 7, "jm-7"))
	require.NoError(t, s.Publish(t.Context(), stores.Publication{
		CheckpointID: checkpointID(5), Epoch: 7,
		Reference: stores.Reference{Handle: "h", Token: "tok", Attempt: 1},
	}))
	return s, rawConn(t), root
}

// requireUnchanged asserts that the node still holds what the tampering
// left: nothing was decided on it, so nothing was written.
func requireUnchanged(t *testing.T, raw *zk.Conn, path, want string) {
	t.Helper()
	data, _, err := raw.Get(path)
	require.NoError(t, err)
	assert.Equal(t, want, string(data), "%s was written over", path)
}

// Issue 22, finding 7: a job node holding null, {} or another program's
// JSON was read as the zero job state, and a deposed leader's claim of
// epoch 2 succeeded after the job stood at epoch 7.
func TestCorruptJobNodeRefused(t *testing.T) {
	for _, c := range storetest.CorruptJobStates {
		t.Run(c.Name, func(t *testing.T) {
			s, raw, root := tampered(t)
			path := root + "/c1/jobs/j1"
			_, err := raw.Set(path, []byte(c.Data), -1)
			require.NoError(t, err)
			storetest.RequireJobRefused(t, s, job, 5)
			requireUnchanged(t, raw, path, c.Data)
		})
	}
}

// A key holding what no encoder wrote (no version, an empty token or
// handle, a tombstone without since) is refused, never decided on.
func TestCorruptEntryRefused(t *testing.T) {
	for _, c := range storetest.CorruptEntries {
		t.Run(c.Name, func(t *testing.T) {
			s, raw, root := tampered(t)
			path := root + "/c1/checkpoints/j1/0000000000000000005"
			_, err := raw.Set(path, []byte(c.Data), -1)
			require.NoError(t, err)
			storetest.RequireEntryRefused(t, s, checkpointID(5))
			requireUnchanged(t, raw, path, c.Data)
		})
	}
}

// Another program's node among a job's keys, or among the jobs, is refused
// by every call that lists them: not skipped, not read as another key.
func TestForeignNodesUnderRootRefused(t *testing.T) {
	for _, name := range []string{"7", "lock-0000000001", "0000000000000000000", "+000000000000000007"} {
		t.Run("key "+name, func(t *testing.T) {
			s, raw, root := tampered(t)
			_, err := raw.Create(root+"/c1/checkpoints/j1/"+name, []byte("x"), 0, zk.WorldACL(zk.PermAll))
			require.NoError(t, err)
			storetest.RequireKeysRefused(t, s, job)
		})
	}
	t.Run("job", func(t *testing.T) {
		s, raw, root := tampered(t)
		_, err := raw.Create(root+"/c1/jobs/Not_A_Job", []byte("x"), 0, zk.WorldACL(zk.PermAll))
		require.NoError(t, err)
		_, err = s.ListJobs(t.Context(), "c1")
		storetest.RequireCorrupt(t, err, "ListJobs")
	})
}

// A job node the unversioned encoder wrote (format version 1) reads as
// what it said, and the next write moves it to the versioned format.
func TestLegacyJobNodeRead(t *testing.T) {
	for _, c := range storetest.LegacyJobStates {
		t.Run(c.Data, func(t *testing.T) {
			s, raw, root := tampered(t)
			path := root + "/c1/jobs/j1"
			_, err := raw.Set(path, []byte(c.Data), -1)
			require.NoError(t, err)
			st, err := s.ReadJob(t.Context(), job)
			require.NoError(t, err)
			assert.Equal(t, c.State, st)
			if !c.State.Retired {
				require.NoError(t, s.ClaimEpoch(t.Context(), job, c.State.Epoch+1, "jm-next"))
				data, _, err := raw.Get(path)
				require.NoError(t, err)
				assert.Contains(t, string(data), `"v":2`)
			}
		})
	}
	s, raw, root := tampered(t)
	_, err := raw.Set(root+"/c1/jobs/j1", []byte(`{"epoch":7,"owner":"jm-7","watermark":0}`), -1)
	require.NoError(t, err)
	err = s.ClaimEpoch(t.Context(), job, 2, "jm-2")
	require.ErrorIs(t, err, stores.ErrStaleEpoch, "a legacy node still fences a deposed leader")
}
