package cluster_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/flinkcluster"
)

// runsBundlingJob runs the job of flink/cluster/bundling, which bundles
// its own Temporal SDK, gRPC, protobuf, Guava and Jackson, each of another
// version than the plugin's, on the world's cluster (parent-first class
// loading, common's), and says what is wrong: a job that did not finish,
// with where its operator found each of those classes. In the plugin's
// world any of them the plugin's jar in lib/ carried under the library's
// own name would be loaded instead of the job's; stock's world, whose
// lib/ has no plugin, is the yardstick that the job itself runs.
func (w *world) runsBundlingJob(ctx context.Context, dir string) error {
	id, err := w.c.Run(ctx, jarsBuilt.bundling, flinkcluster.Restore{}, "--dir", dir)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, waitLimit)
	defer cancel()
	state := ""
	for state != "FINISHED" && state != "FAILED" && state != "CANCELED" {
		select {
		case <-ctx.Done():
			return fmt.Errorf("the bundling job %s did not end within %s (%s): %w", id, waitLimit, state, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
		if job, err := w.c.Job(ctx, id); err == nil {
			state = job.State
		}
	}
	origins, err := os.ReadFile(filepath.Join(dir, "origins"))
	if err != nil {
		origins = []byte("(no origins written: " + err.Error() + ")")
	}
	if state != "FINISHED" || strings.Contains(string(origins), "FOREIGN") {
		return fmt.Errorf("the bundling job %s is %s; where its classes came from:\n%s", id, state, origins)
	}
	return nil
}
