package embedded_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/embedded"
	"github.com/checkpoint-finalizer/finalizer/stores/storetest"
)

var job = stores.JobID{Cluster: "c1", Job: "j1"}

// The file's layout, as the store writes it.
const (
	jobKey = "c1/j1/"
	key5   = "c1/j1/0000000000000000005"
)

// tampered is a store file with a job at epoch 7 and checkpoint 5
// published, in which tamper then writes raw bytes (bucket, key, value)
// with the store closed, as another program with the file would.
func tampered(t *testing.T, tamper func(tx *bolt.Tx) error) (*embedded.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "references.db")
	s, err := embedded.Open(path)
	require.NoError(t, err)
	require.NoError(t, s.ClaimEpoch(t.Context(), job, 7, "jm-7"))
	require.NoError(t, s.Publish(t.Context(), stores.Publication{
		CheckpointID: stores.CheckpointID{JobID: job, Checkpoint: 5}, Epoch: 7,
		Reference: stores.Reference{Handle: "h", Token: "tok", Attempt: 1},
	}))
	require.NoError(t, s.Close())
	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(tamper))
	require.NoError(t, db.Close())
	s, err = embedded.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s, path
}

func put(bucket, key, value string) func(tx *bolt.Tx) error {
	return func(tx *bolt.Tx) error { return tx.Bucket([]byte(bucket)).Put([]byte(key), []byte(value)) }
}

// requireUnchanged closes s and asserts the key still holds what the
// tampering left: nothing was decided on it, so nothing was written.
func requireUnchanged(t *testing.T, s *embedded.Store, path, bucket, key, want string) {
	t.Helper()
	require.NoError(t, s.Close())
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		assert.Equal(t, want, string(tx.Bucket([]byte(bucket)).Get([]byte(key))), "%s/%s was written over", bucket, key)
		return nil
	}))
}

// Issue 22, finding 7, on the embedded store: a job state no encoder wrote
// was read as zero (or as whatever it half said), and a stale claim
// succeeded.
func TestCorruptJobStateRefused(t *testing.T) {
	for _, c := range storetest.CorruptJobStates {
		t.Run(c.Name, func(t *testing.T) {
			s, path := tampered(t, put("jobs", jobKey, c.Data))
			storetest.RequireJobRefused(t, s, job, 5)
			requireUnchanged(t, s, path, "jobs", jobKey, c.Data)
		})
	}
}

func TestCorruptEntryRefused(t *testing.T) {
	for _, c := range storetest.CorruptEntries {
		t.Run(c.Name, func(t *testing.T) {
			s, path := tampered(t, put("references", key5, c.Data))
			storetest.RequireEntryRefused(t, s, stores.CheckpointID{JobID: job, Checkpoint: 5})
			requireUnchanged(t, s, path, "references", key5, c.Data)
		})
	}
}

// Keys no version of the store wrote, under a job's prefix or among the
// jobs, are refused by every call that lists them.
func TestForeignKeysRefused(t *testing.T) {
	for _, key := range []string{"c1/j1/7", "c1/j1/lock", "c1/j1/0000000000000000000", "c1/j1/0000000000000000005/x"} {
		t.Run(key, func(t *testing.T) {
			s, _ := tampered(t, put("references", key, `{"v":1,"published":{"handle":"h","token":"t","attempt":1}}`))
			storetest.RequireKeysRefused(t, s, job)
		})
	}
	for _, key := range []string{"c1/Not_A_Job/", "c1/j2", "c1/j2/extra"} {
		t.Run("job "+key, func(t *testing.T) {
			s, _ := tampered(t, put("jobs", key, `{"v":2,"epoch":1,"owner":"o","watermark":0,"retired":false,"forgottenEpoch":0}`))
			_, err := s.ListJobs(t.Context(), "c1")
			storetest.RequireCorrupt(t, err, "ListJobs")
		})
	}
}

// A job state the unversioned encoder wrote reads as what it said.
func TestLegacyJobStateRead(t *testing.T) {
	for _, c := range storetest.LegacyJobStates {
		t.Run(c.Data, func(t *testing.T) {
			s, _ := tampered(t, put("jobs", jobKey, c.Data))
			st, err := s.ReadJob(t.Context(), job)
			require.NoError(t, err)
			assert.Equal(t, c.State, st)
		})
	}
}
