package blobstate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Test fixtures follow Flink's layout: <base>/<job>/chk-<id>/ holds a
// checkpoint's exclusive files and its _metadata, <base>/<job>/shared/ and
// <base>/<job>/taskowned/ hold files shared between checkpoints.

func jobID(job string) stores.JobID { return stores.JobID{Cluster: "prod-eu", Job: job} }

func ckpt(job string, n uint64) stores.CheckpointID {
	return stores.CheckpointID{JobID: jobID(job), Checkpoint: n}
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func put(t testing.TB, s *Store, key string, data []byte) {
	t.Helper()
	require.NoError(t, s.bucket.WriteAll(context.Background(), key, data, nil))
}

func get(t testing.TB, s *Store, key string) []byte {
	t.Helper()
	b, err := s.bucket.ReadAll(context.Background(), key)
	require.NoError(t, err)
	return b
}

func exists(t testing.TB, s *Store, key string) bool {
	t.Helper()
	ok, err := s.bucket.Exists(context.Background(), key)
	require.NoError(t, err)
	return ok
}

// keys lists every object under prefix ("" for the whole bucket).
func keys(t testing.TB, s *Store, prefix string) []string {
	t.Helper()
	var out []string
	it := s.bucket.List(&blob.ListOptions{Prefix: prefix})
	for {
		o, err := it.Next(context.Background())
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		out = append(out, o.Key)
	}
}

// seedCheckpoint writes a checkpoint's metadata and files exclusive files
// the way a job manager would, and returns the handle describing them.
func seedCheckpoint(t testing.TB, s *Store, job string, epoch, n uint64, files int) Handle {
	t.Helper()
	prefix := fmt.Sprintf("flink/%s/chk-%d/", job, n)
	meta := []byte(fmt.Sprintf("metadata of %s checkpoint %d", job, n))
	put(t, s, prefix+"_metadata", meta)
	for i := range files {
		put(t, s, fmt.Sprintf("%sop-%d/file-%03d", prefix, i%3, i), []byte("state"))
	}
	return Handle{
		CheckpointID:    ckpt(job, n),
		Epoch:           epoch,
		MetadataKey:     prefix + "_metadata",
		MetadataSHA256:  sha(meta),
		ExclusivePrefix: prefix,
	}
}

// validHandle is a handle whose fields pass Validate, for table tests.
func validHandle() Handle {
	return Handle{
		CheckpointID:    ckpt("orders", 42),
		Epoch:           3,
		MetadataKey:     "flink/orders/chk-42/_metadata",
		MetadataSHA256:  sha([]byte("m")),
		ExclusivePrefix: "flink/orders/chk-42/",
	}
}
