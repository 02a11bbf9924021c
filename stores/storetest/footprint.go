package storetest

import (
	"context"
	"flag"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Footprint is a backend's view of what the store holds, for RunFootprint.
type Footprint struct {
	// Bytes is what the store holds for the job, as the backend counts it
	// against its limits (a ConfigMap's size, a ZooKeeper subtree's data).
	Bytes func(ctx context.Context) (int, error)
	// Server says what the server as a whole holds, printed at each
	// interval (etcd's database size); nil prints nothing.
	Server func(ctx context.Context) (string, error)
}

// FootprintCheckpoints is how many checkpoints RunFootprint drives: 300
// in the suite, 20,000 or more for a soak.
var FootprintCheckpoints = flag.Int("footprint.checkpoints", 300, "checkpoints of the footprint soak (TestFootprint)")

// footprintSlack bounds how much the bytes may differ from the settled
// ones: the digits of the watermark and of a key's name, never a key more.
const footprintSlack = 64

// footprintSettled is the checkpoint after which retention has settled:
// the footprint there is the one every later checkpoint must keep.
const footprintSettled = 100

// RunFootprint drives one job the way retention drives it at its maximum
// rate, with retain 1 and every finalization closed at once: publish
// checkpoint n, subsume n-1, collect n-1's subsumed tombstone (what
// activities.RemoveCheckpoints asks of the store). It prints the job's
// keys and bytes at intervals and fails on any refused write, and unless
// the keys and bytes after the last checkpoint are those after the
// hundredth: the footprint is bounded by retention, not by the number of
// checkpoints (the bytes within footprintSlack).
func RunFootprint(t *testing.T, s stores.ReferenceStore, fp Footprint) {
	checkpoints := *FootprintCheckpoints
	require.Greater(t, checkpoints, footprintSettled)
	job := stores.JobID{Cluster: "footprint", Job: "soak"}
	c := context.Background()
	require.NoError(t, s.ClaimEpoch(c, job, 1, "jm-1"))
	token := func(n int) string { return fmt.Sprintf("token-%020d", n) }
	measure := func(n int) (keys, bytes int) {
		all, err := s.ListEntries(c, job)
		require.NoError(t, err)
		b, err := fp.Bytes(c)
		require.NoError(t, err)
		line := fmt.Sprintf("checkpoint %6d: %d keys, %d bytes", n, len(all), b)
		if fp.Server != nil {
			srv, err := fp.Server(c)
			require.NoError(t, err)
			line += ", " + srv
		}
		t.Log(line)
		return len(all), b
	}
	var settledKeys, settledBytes int
	for n := 1; n <= checkpoints; n++ {
		p := stores.Publication{CheckpointID: stores.CheckpointID{JobID: job, Checkpoint: uint64(n)}, Epoch: 1, Owner: "jm-1",
			Reference: stores.Reference{Handle: fmt.Sprintf("handles/footprint/soak/%020d/%020d.json", 1, n), Token: token(n), Attempt: 1}}
		require.NoError(t, s.Publish(c, p), "checkpoint %d", n)
		if n > 1 {
			prev := stores.CheckpointID{JobID: job, Checkpoint: uint64(n - 1)}
			require.NoError(t, s.Subsume(c, prev, 1), "checkpoint %d", n-1)
			require.NoError(t, s.CollectSubsumed(c, prev, token(n-1)), "checkpoint %d", n-1)
		}
		switch {
		case n == footprintSettled:
			settledKeys, settledBytes = measure(n)
		case n%max(checkpoints/10, 1) == 0 || n == checkpoints:
			keys, bytes := measure(n)
			if n > footprintSettled {
				assert.Equal(t, settledKeys, keys, "keys at checkpoint %d against %d", n, footprintSettled)
				assert.LessOrEqual(t, bytes, settledBytes+footprintSlack, "bytes at checkpoint %d against %d", n, footprintSettled)
			}
		}
	}
}
