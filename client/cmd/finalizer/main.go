// Command finalizer is the command-line face of package client: claim an
// epoch, trigger or watch a finalization, list stuck ones, retire a job,
// reconcile a cluster's HA store with its state bucket.
//
//	finalizer [global flags] <command> [flags]
//
//	claim     --cluster C --job J --epoch E --owner O    (prints the restore point)
//	latest    --cluster C --job J                        (the restore point, no claim)
//	finalize  --cluster C --job J --epoch E --checkpoint N
//	          --metadata-key K --metadata-sha256 H --exclusive-prefix P
//	          [--savepoint] [--max-attempts N] [--wait] [--progress-interval 500ms]
//	          (a --savepoint may leave --exclusive-prefix out)
//	status    --cluster C --job J --epoch E --checkpoint N
//	list      --stuck [--older-than 5m]
//	retry-now --cluster C --job J --epoch E --checkpoint N
//	          | --stuck [--older-than 5m] [--cluster C] [--job J] (--dry-run | --yes)
//	abandon   --reason TEXT, then as retry-now
//	          (both signal Verifying finalizations only; abandon keeps the state)
//	retire    --cluster C --job J --epoch E
//	reconcile --cluster C [--apply] [--quarantine-dangling] [--grace 1h]
//	          [--tombstone-ttl 24h] [--report-limit 100]
//	          [--schedule [--interval 10m]]
//	help [command]                   (also --help, on stdout)
//	completion bash|zsh|fish|powershell  (e.g. source <(finalizer completion bash))
//	version                          (also --version)
//
// The commands are cobra's, the flags pflag's (package flag's single-dash
// -json still reads as --json). Every problem of a command line (a value
// that does not parse, in a flag or its variable, a missing flag, a broken
// rule) is reported at once, each naming its flag, its variable if it has
// one, and the rule; a mistyped command is refused with the one it
// resembles.
//
// Global flags, accepted before or after the command, are the worker's
// names for the same settings (one definition, package connflags), so one
// environment configures both:
// --temporal-profile, --temporal-address, --temporal-namespace,
// --temporal-tls, --temporal-tls-ca-file, --temporal-tls-cert-file,
// --temporal-tls-key-file, --temporal-tls-server-name,
// --temporal-api-key-file (the key itself only from
// FINALIZER_TEMPORAL_API_KEY: process listings show flags), --task-queue,
// -o/--output (text, wide: tables with every column, json or yaml: the
// result on stdout and an error as one object {error, kind, exitCode} on
// stderr, so stdout never holds an error), --json (the same as -o json)
// and --timeout (bounds the whole command; 0, the default, waits as long
// as it takes). A Temporal
// setting comes from, highest first: the flag, its FINALIZER_ variable
// (--temporal-address: FINALIZER_TEMPORAL_ADDRESS), Temporal's own
// TEMPORAL_* variable, the temporal.toml profile (TEMPORAL_CONFIG_FILE,
// TEMPORAL_PROFILE), the default (127.0.0.1:7233, namespace "default").
// The old spellings (--address, --namespace, --tls*, --api-key-file,
// FINALIZER_NAMESPACE) are refused with their new name.
//
// Exit codes: 0 success (finalize --wait: Published); 1 an error that says
// nothing about the server's side (connection, timeout: repeat the command);
// 2 usage or an invalid request (nothing was sent); 3 the finalization ended
// but not Published (Discarded, Abandoned, Failed, or closed without a
// result: terminated, cancelled, timed out; do not acknowledge the
// checkpoint, and repeating answers the same), or a claim, retirement or
// latest read closed without an answer (terminated, say); 4 refused (stale epoch,
// retired job, different content for the same identity, a cluster the
// worker's tenant gate does not serve; retry-now and abandon of a
// finalization not in Verifying, the only phase that reads their signals:
// nothing was sent); 5 not found (status, retry-now or abandon of an
// identity no finalization has: repeating finds nothing more). reconcile
// exits 0 once the run finished, findings or not, and 1 when some item
// could not be settled (the report lists it); retry-now and abandon
// --stuck exit 1 when some signal was not sent (the report names it), 0
// when every listed one was signalled or skipped (not Verifying).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
