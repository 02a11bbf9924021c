// Command finalizer-worker runs the checkpoint finalizer's Temporal worker
// until SIGINT or SIGTERM, then drains (see package worker).
//
//	finalizer-worker [flags]              run the worker
//	finalizer-worker healthcheck [flags]  exit 0 if a local worker polls
//	finalizer-worker version              print the build (also --version)
//	finalizer-worker -h                   list flags and environment variables
//	finalizer-worker help                 the same
//
// Exit codes: 0 clean shutdown, 1 runtime failure, 2 bad configuration
// (flags, environment, a namespace that does not exist or one without the
// search attributes).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/version"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

func main() { os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr)) }

// run is the whole command apart from the process: arguments, environment
// and output are passed in so that tests see what it prints.
func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if version.Requested(args) {
		if err := version.Print(stdout, "finalizer-worker"); err != nil {
			return 1
		}
		return 0
	}
	// help is the command-style spelling of -h, as the other commands
	// (healthcheck, version) are words.
	if len(args) > 0 && args[0] == "help" {
		worker.Usage(stdout)
		return 0
	}
	if len(args) > 0 && args[0] == "healthcheck" {
		// The healthcheck needs the metrics address alone: a rule another
		// setting breaks is the worker's start to report, not its probe's.
		cfg, err := worker.LoadConfig(args[1:], getenv)
		if errors.Is(err, flag.ErrHelp) {
			worker.Usage(stdout)
			return 0
		}
		if err != nil {
			fmt.Fprintf(stderr, "finalizer-worker: %v\n", err)
			return 2
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		if err := worker.Healthcheck(ctx, cfg.MetricsAddress); err != nil {
			fmt.Fprintf(stderr, "finalizer-worker: %v\n", err)
			return 1
		}
		return 0
	}
	cfg, err := worker.LoadValidConfig(args, getenv)
	if errors.Is(err, flag.ErrHelp) {
		worker.Usage(stdout)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "finalizer-worker: bad configuration:\n%v\n", err)
		return 2
	}

	logger := worker.NewLogger(cfg, stderr)
	slog.SetDefault(logger)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// After the first signal, a second one kills at once instead of
		// waiting out the drain.
		<-ctx.Done()
		stop()
	}()
	if err := worker.Run(ctx, cfg, logger); err != nil {
		logger.Error("worker failed", "error", err)
		if errors.Is(err, worker.ErrSearchAttributes) || errors.Is(err, worker.ErrNamespace) {
			// Restarting does not help; creating the namespace or
			// registering the attributes does.
			fmt.Fprintf(stderr, "finalizer-worker: %v\n", err)
			return 2
		}
		return 1
	}
	return 0
}
