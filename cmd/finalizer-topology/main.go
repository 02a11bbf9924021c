// Command finalizer-topology runs the production topology on this machine,
// natively and on loopback (tools/topology): a private PostgreSQL 15
// cluster, the Temporal server on it with SQL advanced visibility and its
// Web UI, a 3-node ZooKeeper ensemble, finalizer-worker processes on one
// task queue and the finalizer CLI. scripts/topology.sh wraps it.
//
//	finalizer-topology up [--dir finalizer-data/topology] [--workers 2] [--retain 2] [--worker-binary PATH]
//	finalizer-topology upgrade [--dir ...] [--worker-binary PATH]
//	finalizer-topology status [--dir ...]
//	finalizer-topology down [--dir ...]
//
// The commands are cobra's, the flags pflag's (package flag's -dir still
// reads the same). Exit codes: 0 done, 1 a step failed, 2 a bad command
// line.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/checkpoint-finalizer/finalizer/internal/flagenv"
	"github.com/checkpoint-finalizer/finalizer/internal/version"
	"github.com/checkpoint-finalizer/finalizer/tools/topology"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// errFailed: a step failed and said so on stderr already.
var errFailed = errors.New("failed")

// run is the whole command apart from the process, so that tests see what
// it prints and the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if version.Requested(args) {
		if err := version.Print(stdout, "finalizer-topology"); err != nil {
			return 1
		}
		return 0
	}
	root := &cobra.Command{
		Use:           "finalizer-topology",
		Short:         "the production topology on this machine, natively, on loopback",
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	fs := root.PersistentFlags()
	dir := fs.String("dir", "finalizer-data/topology", "state `directory` (data, logs, pid files, topology.json)")
	workers := fs.Int("workers", 2, "finalizer-worker processes (up)")
	retain := fs.Int("retain", 2, "references kept per job (the workers' --retain; up)")
	workerBinary := fs.String("worker-binary", "", "finalizer-worker `binary` the workers run (up, upgrade; default: this checkout's build)")
	// fail prints a step's error; the exit code is 1.
	fail := func(err error) error {
		fmt.Fprintln(stderr, err)
		return errFailed
	}
	load := func() (*topology.Topology, error) {
		tp, err := topology.Load(*dir)
		if err != nil {
			return nil, fail(fmt.Errorf("no topology in %s: %w", *dir, err))
		}
		return tp, nil
	}
	root.AddCommand(&cobra.Command{
		Use:   "up",
		Short: "create and start a topology; print every address",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			start := time.Now()
			tp, err := topology.Up(ctx, topology.Options{Dir: *dir, Workers: *workers, Retain: *retain, WorkerBinary: *workerBinary, Progress: stderr})
			if err != nil {
				return fail(err)
			}
			fmt.Fprintf(stderr, "topology: up in %s\n", time.Since(start).Round(time.Second))
			fmt.Fprint(stdout, tp.Status())
			return nil
		},
	}, &cobra.Command{
		Use:   "upgrade",
		Short: "replace the workers by this checkout's build (or --worker-binary), one at a time",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			tp, err := load()
			if err != nil {
				return err
			}
			if _, err := tp.Upgrade(ctx, *workerBinary, stderr); err != nil {
				return fail(err)
			}
			fmt.Fprint(stdout, tp.Status())
			return nil
		},
	}, &cobra.Command{
		Use:   "status",
		Short: "what runs (each pid), the ZooKeeper modes, the logs",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			tp, err := load()
			if err != nil {
				return err
			}
			fmt.Fprint(stdout, tp.Status())
			return nil
		},
	}, &cobra.Command{
		Use:   "down",
		Short: "stop everything up started; data and logs stay",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			tp, err := load()
			if err != nil {
				return err
			}
			if err := tp.Down(); err != nil {
				return fail(err)
			}
			fmt.Fprintf(stdout, "topology in %s stopped (data and logs kept there)\n", tp.Dir)
			return nil
		},
	})
	root.SetArgs(flagenv.LongDash(args, fs.Lookup))
	switch err := root.Execute(); {
	case errors.Is(err, errFailed):
		return 1
	case err != nil:
		// A command line cobra or pflag refused: an unknown flag or
		// command, an argument where none is taken.
		fmt.Fprintf(stderr, "finalizer-topology: %v\n", err)
		return 2
	}
	return 0
}
