package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/embedded"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

// backupCommand is `finalizer-worker backup --to FILE [--from URL]`: a
// consistent copy of the embedded store, from a running worker's metrics
// endpoint or, without --from, from the file the store flags name (a
// stopped worker's). It sets *code: 0 written, 1 not written (a worker
// holds the file, the worker refused, the copy did not verify), 2 bad
// command line or configuration.
func backupCommand(flags *worker.Flags, getenv func(string) string, stdout, stderr io.Writer, code *int) *cobra.Command {
	var to, from string
	cmd := &cobra.Command{
		Use:   "backup --to FILE [--from http://127.0.0.1:9464]",
		Short: "copy the embedded store: from a running worker (--from, its metrics endpoint, on loopback) or a stopped one's file (--embedded-path)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			// Only the store's settings matter: a rule another setting
			// breaks is the worker's start to report.
			cfg, problems := flags.Load(getenv)
			if from == "" && len(problems) == 0 && cfg.Store.Kind != worker.StoreEmbedded {
				problems = append(problems, &stores.InvalidError{Field: "--store",
					Rule: fmt.Sprintf("is %s: backup copies the embedded store (back up ZooKeeper or Kubernetes with their own tools)", cfg.Store.Kind)})
			}
			if len(problems) > 0 {
				fmt.Fprintf(stderr, "finalizer-worker: %v\n", errors.Join(problems...))
				*code = 2
				return nil
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			n, err := worker.Backup(ctx, worker.BackupRequest{To: to, From: from, StorePath: cfg.Store.Embedded.Path})
			*code = backupExit(err)
			if err != nil {
				fmt.Fprintf(stderr, "finalizer-worker: %v\n", err)
				if errors.Is(err, embedded.ErrLocked) {
					fmt.Fprintf(stderr, "finalizer-worker: a running worker holds the file: back up through it (--from http://127.0.0.1:<metrics port>); stop it before restoring over its file\n")
				}
				return nil
			}
			fmt.Fprintf(stdout, "backed up the embedded store to %s (%d bytes, verified)\n", to, n)
			return nil
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "backup `file`, written atomically (required)")
	cmd.Flags().StringVar(&from, "from", "", "a running worker's metrics endpoint, `http://127.0.0.1:9464`; it serves /backup to loopback clients only")
	return cmd
}

func backupExit(err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, stores.ErrInvalid):
		return 2
	}
	return 1
}
