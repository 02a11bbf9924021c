package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/checkpoint-finalizer/finalizer/internal/temporaltest"
	"github.com/checkpoint-finalizer/finalizer/internal/zktest"
	"github.com/checkpoint-finalizer/finalizer/worker"
	"github.com/checkpoint-finalizer/finalizer/workflows"
)

// servers are the run's real servers, shared by every store and path.
type servers struct {
	temporal *temporaltest.Server
	zk       *zktest.Server // nil when no store needs it
}

// startServers starts a Temporal dev server on a file database in dir
// (the CLI installs into the cache on first use) and, when a store needs
// it, a standalone ZooKeeper.
func startServers(ctx context.Context, cfg Config, dir string) (*servers, error) {
	cli, err := temporaltest.EnsureCLI(ctx, cfg.Progress)
	if err != nil {
		return nil, err
	}
	// Explicit, whatever the server version's default: the durable path's
	// in-process trigger relies on it.
	args := []string{"--dynamic-config-value", "system.enableEagerWorkflowStart=true"}
	for _, kv := range cfg.TemporalConfig {
		args = append(args, "--dynamic-config-value", kv)
	}
	t, err := temporaltest.StartServer(ctx, temporaltest.Options{
		DBFile: filepath.Join(dir, "temporal.db"), LogDir: dir, CLIPath: cli,
		SearchAttributes: workflows.SearchAttributes(), ExtraArgs: args,
	})
	if err != nil {
		return nil, err
	}
	s := &servers{temporal: t}
	fmt.Fprintf(cfg.Progress, "Temporal dev server %s (log %s)\n", t.HostPort, t.LogPath)
	if slices.Contains(cfg.Stores, worker.StoreZooKeeper) {
		if s.zk, err = zktest.StartServer(); err != nil {
			s.stop(cfg.Keep)
			return nil, err
		}
		fmt.Fprintf(cfg.Progress, "ZooKeeper %s (dir %s)\n", s.zk.Addr, s.zk.Dir)
	}
	return s, nil
}

func (s *servers) stop(keep bool) {
	if s.zk != nil {
		s.zk.Cleanup(keep)
	}
	_ = s.temporal.Stop() // best effort on the way out; its folder is dir
}
