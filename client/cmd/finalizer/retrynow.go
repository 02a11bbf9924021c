package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/checkpoint-finalizer/finalizer/client"
)

func retryNowCommand(a *app) *cobra.Command {
	return signalCommand(a, operatorSignal{
		name:    "retry-now",
		summary: "end a stuck finalization's backoff: it tries again at once (one, or --stuck --yes)",
		long: `retry-now sends the retry-now signal to a finalization stuck in Persisting (its bucket failed),
Verifying (its store did not answer whether the reference landed) or Discarding (its deletes
failed): the running try and its backoff stop and a new one starts at once, typically after the
store or bucket was fixed. A finalization in another phase (Publishing, which ends within
seconds), or ended, is refused (exit 4, nothing sent), and a batch skips it.

A running retirement (retire/<cluster>/<job>/<epoch>) reads it too.

Name one finalization as status does (--cluster --job --epoch --checkpoint), or any execution by
--workflow-id, or take the batch list --stuck lists, retirements included (--stuck [--older-than
5m], narrowed by --cluster and --job): --dry-run shows it and sends nothing, --yes is required to
signal it. A batch reports per workflow ID what came of it and exits 1 if any signal failed.`,
		example: "finalizer retry-now --cluster prod-eu --job 0a1b2c3d4e5f60718293a4b5c6d7e8f9 --epoch 4 --checkpoint 42\n  finalizer retry-now --stuck --older-than 10m --cluster prod-eu --dry-run",
		send:    func(ctx context.Context, f *client.Finalization) error { return f.RetryNow(ctx) },
		effect:  "its persist, verify or discard starts again at once; the finalization ends on its own once the store and bucket answer",
		reason:  func() string { return "" },
	})
}
