package main

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spf13/pflag"

	"github.com/checkpoint-finalizer/finalizer/client"
)

func abandonCommand(a *app) *cobra.Command {
	var reason string
	return signalCommand(a, operatorSignal{
		name:    "abandon",
		summary: "end a stuck finalization as Abandoned, its state kept (one, or --stuck --yes)",
		long: `abandon sends the abandon signal, with --reason, to a finalization stuck in Persisting, Verifying
or Discarding, for an operator who gave up on its store or bucket: the finalization stops what it
was retrying and ends Abandoned, KEEPING its state (whatever a stopped persist wrote, the handle
and data; what a stopped discard left), marked kept in the bucket until an operator releases it;
the result's reason says in which phase. The checkpoint is not published by it (the job manager
must not acknowledge it). A discard that finished before the signal reached it stands. With the
bucket away, the abandon ends once the bucket takes the keep mark. A finalization in another
phase (Publishing, which ends within seconds) or ended is refused (exit 4, nothing sent), and a
batch skips it.

A retirement (retire/<cluster>/<job>/<epoch>) reads it too: abandoned before its store answered,
it ends failed (Unknown.Abandoned: it may have retired the job; nothing discarded); abandoned while
it discards the retired state, it ends with the job retired and what is left where it is.

Name one finalization as status does (--cluster --job --epoch --checkpoint), or any execution by
--workflow-id, or take the batch list --stuck lists, retirements included (--stuck [--older-than
5m], narrowed by --cluster and --job): --dry-run shows it and sends nothing, --yes is required to
signal it. A batch reports per workflow ID what came of it and exits 1 if any signal failed.`,
		example: "finalizer abandon --cluster prod-eu --job 0a1b2c3d4e5f60718293a4b5c6d7e8f9 --epoch 4 --checkpoint 42 --reason \"store decommissioned\"\n  finalizer abandon --stuck --older-than 1h --cluster prod-eu --reason \"zk-3 lost\" --yes",
		flags: func(fs *pflag.FlagSet) func() error {
			fs.StringVar(&reason, "reason", "", "why, recorded as the finalization's result (required)")
			return func() error {
				if strings.TrimSpace(reason) == "" {
					return usagef("abandon: --reason is required: it is the finalization's recorded result")
				}
				return nil
			}
		},
		send:   func(ctx context.Context, f *client.Finalization) error { return f.Abandon(ctx, reason) },
		effect: "the finalization ends Abandoned with its state kept and marked so (nothing more discarded, nothing published)",
		reason: func() string { return reason },
	})
}
