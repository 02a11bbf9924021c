package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/devserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/zktest"
	"github.com/checkpoint-finalizer/finalizer/tools/topology"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

// servers are the run's real servers, shared by every store and path.
type servers struct {
	temporal temporalServer
	zk       *zktest.Server // nil when no store needs it
	kube     *kubeServer    // nil when no store needs it
}

// temporalServer is the Temporal server a run measures on: where it
// listens and the processes whose CPU it spends.
type temporalServer interface {
	Address() string
	// Processes are the server's process and, when its database runs
	// apart (PostgreSQL), the database's.
	Processes() serverProcesses
	// profileServer profiles the server's CPU over window into path when
	// it serves pprof; the channel answers once, when it is written.
	profileServer(ctx context.Context, path string, window time.Duration) <-chan error
	Stop() error
}

// startServers starts the run's Temporal server (cfg.Temporal) in dir and,
// when a store needs them, a standalone ZooKeeper and a kube-apiserver on
// its etcd.
func startServers(ctx context.Context, cfg Config, dir string) (*servers, error) {
	var (
		t   temporalServer
		err error
	)
	switch cfg.Temporal {
	case Postgres:
		t, err = startPostgresServer(ctx, cfg, dir)
	default:
		t, err = startDevServer(ctx, cfg, dir)
	}
	if err != nil {
		return nil, err
	}
	s := &servers{temporal: t}
	if slices.Contains(cfg.Stores, worker.StoreZooKeeper) {
		if s.zk, err = zktest.StartServer(); err != nil {
			s.stop(cfg.Keep)
			return nil, err
		}
		fmt.Fprintf(cfg.Progress, "ZooKeeper %s (dir %s)\n", s.zk.Addr, s.zk.Dir)
	}
	if slices.Contains(cfg.Stores, worker.StoreKubernetes) {
		if s.kube, err = startKube(ctx, dir); err != nil {
			s.stop(cfg.Keep)
			return nil, err
		}
		fmt.Fprintf(cfg.Progress, "kube-apiserver %s (dir %s)\n", s.kube.URL, s.kube.Dir)
	}
	return s, nil
}

func (s *servers) stop(keep bool) {
	if s.zk != nil {
		s.zk.Cleanup(keep)
	}
	if s.kube != nil {
		s.kube.stop(keep)
	}
	_ = s.temporal.Stop() // best effort on the way out; its folder is dir
}

// devServer is the temporal CLI's dev server on a SQLite file: the
// database runs inside the server's process.
type devServer struct{ *devserver.Server }

func (d devServer) Address() string            { return d.HostPort }
func (d devServer) Processes() serverProcesses { return serverProcesses{temporal: d.PID()} }

// profileServer: the dev server serves no pprof.
func (devServer) profileServer(context.Context, string, time.Duration) <-chan error {
	done := make(chan error, 1)
	done <- nil
	return done
}

// startDevServer starts a Temporal dev server on a file database in dir
// (the CLI installs into the cache on first use).
func startDevServer(ctx context.Context, cfg Config, dir string) (devServer, error) {
	cli, err := devserver.EnsureCLI(ctx, cfg.Progress)
	if err != nil {
		return devServer{}, err
	}
	// Explicit, whatever the server version's default: the durable path's
	// in-process trigger relies on it.
	args := []string{"--dynamic-config-value", "system.enableEagerWorkflowStart=true"}
	for _, kv := range cfg.TemporalConfig {
		args = append(args, "--dynamic-config-value", kv)
	}
	t, err := devserver.StartServer(ctx, devserver.Options{
		DBFile: filepath.Join(dir, "temporal.db"), LogDir: dir, CLIPath: cli,
		SearchAttributes: contract.SearchAttributes(), ExtraArgs: args,
	})
	if err != nil {
		return devServer{}, err
	}
	fmt.Fprintf(cfg.Progress, "Temporal dev server %s (log %s)\n", t.HostPort, t.LogPath)
	return devServer{t}, nil
}

// postgresServer is the production topology's Temporal server on its
// private PostgreSQL cluster (tools/topology, without its workers and
// ZooKeeper ensemble: the run brings its own).
type postgresServer struct{ *topology.Topology }

func (p postgresServer) Address() string { return p.Temporal.Frontend }
func (p postgresServer) Processes() serverProcesses {
	return serverProcesses{temporal: p.TemporalPID(), database: p.Postgres.PID()}
}
func (p postgresServer) Stop() error { return p.Down() }

// profileServer fetches the server's CPU profile from its pprof endpoint
// (the topology turns it on, loopback only).
func (p postgresServer) profileServer(ctx context.Context, path string, window time.Duration) <-chan error {
	done := make(chan error, 1)
	go func() { done <- fetchProfile(ctx, p.Temporal.Pprof, path, window) }()
	return done
}

// fetchProfile writes a CPU profile of the Go process serving pprof at
// addr, taken over window, to path.
func fetchProfile(ctx context.Context, addr, path string, window time.Duration) error {
	secs := max(1, int(window.Round(time.Second).Seconds()))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, secs), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("server profile: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("server profile from %s: %s", addr, resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("server profile: %w", err)
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return fmt.Errorf("server profile: %w", err)
	}
	return f.Close()
}

// startPostgresServer brings up PostgreSQL 15 and Temporal server
// topology.ServerVersion on it, with the production defaults (eager
// workflow start is on by default there).
func startPostgresServer(ctx context.Context, cfg Config, dir string) (postgresServer, error) {
	// The postgres user reaches its cluster through the run's folder,
	// which MkdirTemp creates private.
	if err := os.Chmod(dir, 0o755); err != nil {
		return postgresServer{}, fmt.Errorf("run folder: %w", err)
	}
	tp, err := topology.Up(ctx, topology.Options{
		Dir: filepath.Join(dir, "topology"), TemporalOnly: true, Progress: cfg.Progress,
	})
	if err != nil {
		return postgresServer{}, err
	}
	fmt.Fprintf(cfg.Progress, "Temporal server %s on PostgreSQL %s: %s (log %s)\n",
		topology.ServerVersion, tp.Postgres.Addr(), tp.Temporal.Frontend, tp.Temporal.Process.Log)
	return postgresServer{tp}, nil
}
