package main

import (
	"context"

	"github.com/checkpoint-finalizer/finalizer/client"
)

func retryNowCommand() command {
	return signalCommand(operatorSignal{
		name:    "retry-now",
		summary: "end a Verifying finalization's backoff: it verifies again at once (one, or --stuck --yes)",
		long: `retry-now sends the retry-now signal to a finalization in Verifying (its store did not answer
whether the reference landed): the running verify and its backoff stop and a new verify starts at
once, typically after the store was fixed. Only Verifying reads the signal: a finalization in
another phase, or ended, is refused (exit 4, nothing sent), and a batch skips it.

Name one finalization as status does (--cluster --job --epoch --checkpoint), or take the batch
list --stuck lists (--stuck [--older-than 5m], narrowed by --cluster and --job): --dry-run shows
it and sends nothing, --yes is required to signal it. A batch reports per workflow ID what came
of it and exits 1 if any signal failed.`,
		example: "finalizer retry-now --cluster prod-eu --job 0a1b2c3d4e5f60718293a4b5c6d7e8f9 --epoch 4 --checkpoint 42\n  finalizer retry-now --stuck --older-than 10m --cluster prod-eu --dry-run",
		send:    func(ctx context.Context, f *client.Finalization) error { return f.RetryNow(ctx) },
		effect:  "a verify starts at once; the finalization ends Published or Discarded on its own once the store answers",
		reason:  func() string { return "" },
	})
}
