// Command finalizer-worker runs the checkpoint finalizer's Temporal worker
// until SIGINT or SIGTERM, then drains (see package worker).
//
//	finalizer-worker [flags]              run the worker
//	finalizer-worker healthcheck [flags]  exit 0 if a local worker polls
//	finalizer-worker version              print the build (also --version)
//	finalizer-worker -h                   list flags and environment variables
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
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/version"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	if version.Requested(args) {
		if err := version.Print(os.Stdout, "finalizer-worker"); err != nil {
			return 1
		}
		return 0
	}
	healthcheck := len(args) > 0 && args[0] == "healthcheck"
	if healthcheck {
		args = args[1:]
	}
	cfg, err := worker.LoadConfig(args, os.Getenv)
	if errors.Is(err, flag.ErrHelp) {
		worker.Usage(os.Stdout)
		return 0
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "finalizer-worker: %v\n", err)
		return 2
	}
	if healthcheck {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		if err := worker.Healthcheck(ctx, cfg.MetricsAddress); err != nil {
			fmt.Fprintf(os.Stderr, "finalizer-worker: %v\n", err)
			return 1
		}
		return 0
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(os.Stderr, "finalizer-worker: bad configuration:\n%v\n", err)
		return 2
	}

	logger := worker.NewLogger(cfg, os.Stderr)
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
			fmt.Fprintf(os.Stderr, "finalizer-worker: %v\n", err)
			return 2
		}
		return 1
	}
	return 0
}
