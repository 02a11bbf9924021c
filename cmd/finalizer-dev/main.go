// Command finalizer-dev runs the whole product on one machine, on its
// embedded default: a real Temporal dev server with its Web UI (the CLI is
// installed into a cache on first use), the worker on the embedded store and
// a local file bucket, and a demo job manager that finalizes a stream of
// checkpoints for a few jobs while ambiguous publish failures are injected.
// It prints each outcome and a summary, then keeps the Web UI up until
// Ctrl-C.
//
//	go run ./cmd/finalizer-dev [--jobs 3] [--checkpoints 12] [--fault-rate 0.3] [--exit] ...
//
// Exit codes: 0 done (or stopped with Ctrl-C), 1 a step failed, 2 a bad
// command line.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/flagenv"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/storefault"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/devserver"
	"github.com/checkpoint-finalizer/finalizer/internal/version"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

type settings struct {
	dir         string
	port        int
	uiPort      int
	jobs        int
	checkpoints int
	interval    time.Duration
	faultRate   float64
	retain      int
	seed        uint64
	exit        bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := command(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// command parses the command line (cobra and pflag; package flag's -jobs
// still reads the same) and runs the demo: the exit code, 2 for a command
// line it refuses.
func command(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if version.Requested(args) {
		if err := version.Print(stdout, "finalizer-dev"); err != nil {
			return 1
		}
		return 0
	}
	var s settings
	failed := false
	root := &cobra.Command{
		Use:           "finalizer-dev",
		Short:         "the whole product on one machine, on its embedded default, with a demo job manager",
		Args:          cobra.NoArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(*cobra.Command, []string) error {
			if err := run(ctx, s); err != nil {
				fmt.Fprintln(stderr, "finalizer-dev:", err)
				failed = true
			}
			return nil
		},
	}
	root.AddCommand(&cobra.Command{
		Use:   "temporal-cli",
		Short: "install the Temporal CLI dev mode and the tests run (once, into the cache) and print its path",
		Long: "Installs the Temporal CLI dev mode and the tests run into the cache folder unless it is there " +
			"(cold: ~12-18 min on 2 cores), or takes $" + devserver.EnvCLI + " or a `temporal` on PATH that embeds " +
			"a supported server, and prints the binary's path as its last line. Concurrent installs wait for one.",
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			path, err := devserver.EnsureCLI(ctx, stderr)
			if err != nil {
				fmt.Fprintln(stderr, "finalizer-dev:", err)
				failed = true
				return nil
			}
			fmt.Fprintln(stdout, path)
			return nil
		},
	})
	root.SetOut(stdout)
	root.SetErr(stderr)
	fs := root.Flags()
	fs.StringVar(&s.dir, "dir", filepath.Join(worker.DefaultDataDir, "dev"), "folder for the Temporal database, the embedded store and the bucket")
	fs.IntVar(&s.port, "port", 7233, "Temporal frontend port on 127.0.0.1 (0: any free port)")
	fs.IntVar(&s.uiPort, "ui-port", 8233, "Temporal Web UI port on 127.0.0.1 (0: any free port)")
	fs.IntVar(&s.jobs, "jobs", 3, "demo jobs")
	fs.IntVar(&s.checkpoints, "checkpoints", 12, "checkpoints each demo job finalizes")
	fs.DurationVar(&s.interval, "interval", 200*time.Millisecond, "pause between a job's checkpoints")
	fs.Float64Var(&s.faultRate, "fault-rate", 0.3, "share of publish attempts made ambiguous")
	fs.IntVar(&s.retain, "retain", 2, "references kept per job")
	fs.Uint64Var(&s.seed, "seed", uint64(time.Now().UnixNano()), "seed of the injected faults")
	fs.BoolVar(&s.exit, "exit", false, "exit after the summary instead of keeping the Web UI up")
	root.SetArgs(flagenv.LongDash(args, fs.Lookup))
	switch err := root.Execute(); {
	case err != nil:
		fmt.Fprintf(stderr, "finalizer-dev: %v\n", err)
		return 2
	case failed:
		return 1
	}
	return 0
}

func run(ctx context.Context, s settings) error {
	_, err := runDemo(ctx, s)
	return err
}

// runDemo runs everything and returns the demo's summary.
func runDemo(ctx context.Context, s settings) (*summary, error) {
	started := time.Now()
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, err
	}
	fmt.Println("Temporal CLI: checking the cache (the first run installs it, ~15 min on 2 cores)")
	cli, err := devserver.EnsureCLI(ctx, os.Stdout)
	if err != nil {
		return nil, err
	}
	srv, err := devserver.StartServer(ctx, devserver.Options{
		DBFile: filepath.Join(s.dir, "temporal.db"), UI: true, Port: s.port, UIPort: s.uiPort,
		SearchAttributes: contract.SearchAttributes(), CLIPath: cli, LogDir: s.dir,
	})
	if err != nil {
		return nil, err
	}
	defer srv.Stop() //nolint:errcheck // best effort on the way out
	fmt.Printf("Temporal dev server %s, Web UI %s (log %s)\n", srv.HostPort, srv.UIAddress, srv.LogPath)

	faults := storefault.Wrap(nil)
	ready := make(chan worker.Ready, 1)
	workerDone := make(chan error, 1)
	wctx, stopWorker := context.WithCancel(ctx)
	defer func() { stopWorker(); <-workerDone }()
	go func() {
		workerDone <- worker.Run(wctx, workerConfig(s, srv.HostPort), quietLogger(),
			worker.WithReferenceStore(func(inner stores.ReferenceStore) stores.ReferenceStore {
				faults.ReferenceStore = inner
				faults.SetRandom(s.faultRate, rand.New(rand.NewPCG(s.seed, 0)))
				return faults
			}),
			worker.WithReady(func(r worker.Ready) { ready <- r }))
	}()
	var r worker.Ready
	select {
	case r = <-ready:
	case err := <-workerDone:
		workerDone <- err
		return nil, fmt.Errorf("worker: %w", err)
	}
	fmt.Printf("worker on the embedded store %s, bucket %s, metrics http://%s/metrics; ready %s after start\n",
		filepath.Join(s.dir, "references.db"), filepath.Join(s.dir, "bucket"), r.MetricsAddress, time.Since(started).Round(time.Millisecond))
	fmt.Printf("demo: %d jobs x %d checkpoints, %.0f%% of publish attempts ambiguous (seed %d)\n\n", s.jobs, s.checkpoints, 100*s.faultRate, s.seed)

	sum, err := demo(ctx, s, r)
	if err != nil {
		return nil, err
	}
	sum.injected = faults.Injected(storefault.DropReply) + faults.Injected(storefault.DropRequest)
	sum.print(os.Stdout)
	fmt.Printf("\nWeb UI: %s/namespaces/default/workflows\n", srv.UIAddress)
	fmt.Printf("stuck finalizations: FinalizationPhase = \"Verifying\" AND PhaseSince < \"%s\"\n", time.Now().Add(-5*time.Minute).UTC().Format(time.RFC3339))
	if !s.exit {
		fmt.Println("Ctrl-C stops the worker and the server.")
		<-ctx.Done()
	}
	return sum, nil
}

func workerConfig(s settings, temporalAddress string) worker.Config {
	cfg := worker.DefaultConfig()
	cfg.Temporal.Address = temporalAddress
	cfg.Store.Kind = worker.StoreEmbedded
	cfg.Store.Embedded.Path = filepath.Join(s.dir, "references.db")
	cfg.StateBucket = "file://" + bucketDir(s) + "?create_dir=true"
	cfg.Retain = s.retain
	cfg.MetricsAddress = "127.0.0.1:0"
	return cfg
}

func bucketDir(s settings) string {
	abs, err := filepath.Abs(filepath.Join(s.dir, "bucket"))
	if err != nil {
		return filepath.Join(s.dir, "bucket")
	}
	return abs
}

// quietLogger silences the worker's logs: the injected faults make the SDK
// log every failed publish try as an error, and the demo prints what
// matters. A failure of the worker itself still ends run with its error.
func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError + 4}))
}
