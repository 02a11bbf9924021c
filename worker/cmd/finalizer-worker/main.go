// Command finalizer-worker runs the checkpoint finalizer's Temporal worker
// until SIGINT or SIGTERM, then drains (see package worker).
//
//	finalizer-worker [flags]              run the worker
//	finalizer-worker healthcheck [flags]  exit 0 if a local worker polls
//	finalizer-worker release <handle-key> [flags]
//	                                      let go kept state the reconciler reports
//	finalizer-worker backup --to FILE [--from URL] [flags]
//	                                      copy the embedded store, consistently
//	finalizer-worker version              print the build (also --version)
//	finalizer-worker -h                   list flags and environment variables
//	finalizer-worker help                 the same
//	finalizer-worker completion bash|zsh|fish|powershell
//
// The commands are cobra's, the flags pflag's (--retain=2; package flag's
// -retain=2 still reads the same), registered by worker.NewFlags.
//
// Exit codes: 0 clean shutdown, 1 runtime failure, 2 bad configuration
// (flags, environment, a namespace that does not exist or one without the
// search attributes); release also 4, nothing kept there to release;
// backup 1 when no verified copy was written.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/checkpoint-finalizer/finalizer/internal/flagenv"
	"github.com/checkpoint-finalizer/finalizer/internal/version"
	"github.com/checkpoint-finalizer/finalizer/stores"
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
	code := 0
	root, flags := worker.NewRootCommand()
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return worker.CommandLineError(err) })
	root.RunE = func(*cobra.Command, []string) error {
		cfg, problems := flags.Load(getenv)
		if err := worker.Check(cfg, problems); err != nil {
			fmt.Fprintf(stderr, "finalizer-worker: bad configuration:\n%v\n", err)
			code = 2
			return nil
		}
		code = serve(cfg, stderr)
		return nil
	}
	root.AddCommand(&cobra.Command{
		Use:   "healthcheck [flags]",
		Short: "exit 0 if a local worker polls (--metrics-address)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			// The healthcheck needs the metrics address alone: a rule
			// another setting breaks is the worker's start to report, not
			// its probe's.
			cfg, problems := flags.Load(getenv)
			if len(problems) > 0 {
				fmt.Fprintf(stderr, "finalizer-worker: %v\n", errors.Join(problems...))
				code = 2
				return nil
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			if err := worker.Healthcheck(ctx, cfg.MetricsAddress); err != nil {
				fmt.Fprintf(stderr, "finalizer-worker: %v\n", err)
				code = 1
			}
			return nil
		},
	}, &cobra.Command{
		Use:   "release <handle-key> [flags]",
		Short: "let go kept state the reconciler reports (retained, a savepoint's): an operator's decision",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			cfg, problems := flags.Load(getenv)
			if err := worker.Check(cfg, problems); err != nil {
				fmt.Fprintf(stderr, "finalizer-worker: bad configuration:\n%v\n", err)
				code = 2
				return nil
			}
			code = release(cfg, args[0], stdout, stderr)
			return nil
		},
	}, backupCommand(flags, getenv, stdout, stderr, &code), &cobra.Command{
		Use:   "version",
		Short: "print the build (also --version)",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return version.Print(stdout, "finalizer-worker") },
	})
	// The worker's usage template is the root's alone; its subcommands
	// keep cobra's.
	for _, c := range root.Commands() {
		c.SetUsageTemplate((&cobra.Command{}).UsageTemplate())
		c.SetHelpTemplate((&cobra.Command{}).HelpTemplate())
	}
	root.SetArgs(flagenv.LongDash(args, root.PersistentFlags().Lookup))
	if err := root.Execute(); err != nil {
		// A command line cobra or pflag refused: an unknown flag or
		// command, an argument where none is taken.
		fmt.Fprintf(stderr, "finalizer-worker: %v\n", err)
		return 2
	}
	return code
}

// release lets go the kept state of handleKey: the exit code, 0 released,
// 1 the store did not answer (repeat), 2 a handle key that cannot be or a
// cluster not served, 4 nothing kept of that handle's token at its key.
func release(cfg worker.Config, handleKey string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := worker.Release(ctx, cfg, handleKey, worker.NewLogger(cfg, stderr))
	switch {
	case err == nil:
		fmt.Fprintf(stdout, "released %s: the reconciler discards its state once the grace has passed (never a savepoint's data)\n", handleKey)
		return 0
	case errors.Is(err, stores.ErrInvalid):
		fmt.Fprintf(stderr, "finalizer-worker: %v\n", err)
		return 2
	case stores.OutcomeOf(err) == stores.Rejected:
		fmt.Fprintf(stderr, "finalizer-worker: %v\n", err)
		return 4
	}
	fmt.Fprintf(stderr, "finalizer-worker: %v (unknown outcome: repeat the release)\n", err)
	return 1
}

// serve runs the worker until SIGINT or SIGTERM: the exit code.
func serve(cfg worker.Config, stderr io.Writer) int {
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
