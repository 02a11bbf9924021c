package worker

import (
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// Readiness follows the state bucket: a finalization cannot persist its
// handle without it (it would sit in Persisting, retrying), so the bucket
// gone, the worker is not ready and says why; back, it is ready again.
func TestReadinessFollowsTheBucket(t *testing.T) {
	d := newDevWorker(t)
	r, _ := d.start()
	waitReady(t, r.MetricsAddress, http.StatusOK, "store: ok\nbucket: ok\n")

	away := d.bucket + ".away"
	require.NoError(t, os.Rename(d.bucket, away))
	waitReady(t, r.MetricsAddress, http.StatusServiceUnavailable, "bucket: ")
	require.NoError(t, os.Rename(away, d.bucket))
	waitReady(t, r.MetricsAddress, http.StatusOK, "bucket: ok\n")
}
