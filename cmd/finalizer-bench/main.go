// Command finalizer-bench measures finalizations side by side in one run
// on its own real servers (a Temporal server, ZooKeeper, a kube-apiserver
// on etcd; the embedded store): the floor (the cheapest workflow Temporal
// runs for it), the durable path triggered in-process with eager start
// and from a separate client process, a naive one-activity-per-step
// workflow, and the direct non-durable path, each at a fixed offered rate
// and at maximum throughput, every cell -repeat times; then each path's
// history events and billable actions, the store footprint of one job
// after -footprint checkpoints and, on ZooKeeper, the worker's memory and
// the fast path's throughput with finalizations parked in Verifying. It
// prints markdown tables (medians and spreads), the ratios and the issue's
// targets with whether each is met (see tools/bench).
//
//	go run ./cmd/finalizer-bench
//	go run ./cmd/finalizer-bench -store zookeeper -phases durable -modes max -parked 1000 -parked-settle 2m -repeat 1
//	go run ./cmd/finalizer-bench -store zookeeper -phases durable,direct -modes rate -duration 30s -parked 0
//	go run ./cmd/finalizer-bench -store kubernetes -duration 2s -warmup 0 -repeat 2 -scale-jobs '' -parked 0 -worker-parked '' -footprint 110
//
// The first runs everything (all three stores, every path and mode three
// times, the footprint, the parked scenario measured right after parking);
// the second the parked scenario alone, once the parked finalizations'
// verify retries have backed off, as they are when parked for long; the
// last is a smoke run of a few minutes.
//
// Every flag (pflag's --name; package flag's -name still reads the same)
// falls back to FINALIZER_BENCH_<FLAG_IN_UPPER_SNAKE>, an empty one counting
// as unset. Exit
// codes: 0 the run completed (whatever the targets say), 1 it failed, 2
// bad flags.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/checkpoint-finalizer/finalizer/internal/version"
	"github.com/checkpoint-finalizer/finalizer/tools/bench"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if bench.IsTrigger() {
		// Started by a benchmark as its separate trigger process.
		if err := bench.RunTrigger(ctx, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "finalizer-bench:", err)
			os.Exit(1)
		}
		return
	}
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if version.Requested(args) {
		if err := version.Print(stdout, "finalizer-bench"); err != nil {
			return 1
		}
		return 0
	}
	cfg, asJSON, err := parse(args, stderr)
	if errors.Is(err, pflag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "finalizer-bench: %v\n", err)
		return 2
	}
	cfg.Progress = stderr
	rep, err := bench.Run(ctx, cfg)
	if err == nil {
		err = write(rep, asJSON, stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "finalizer-bench: %v\n", err)
		return 1
	}
	return 0
}

// write prints the report: markdown tables, or indented JSON.
func write(rep *bench.Report, asJSON bool, w io.Writer) error {
	if !asJSON {
		rep.WriteMarkdown(w)
		return nil
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// logger: the worker's and the SDK's logs, warnings up with -v, else
// nothing (a parked finalization's every verify retry is logged).
func logger(verbose bool, w io.Writer) *slog.Logger {
	if !verbose {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
