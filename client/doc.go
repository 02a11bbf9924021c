// Package client is the Go API a job manager calls to finalize checkpoints
// through the finalizer's Temporal workflows (see package contract for the
// contract callers in other languages follow).
//
// The calls, in the order a job manager makes them:
//
//   - ClaimEpoch, before it recovers or triggers anything: it claims the
//     job's leadership incarnation and fences every older one. A newer (or
//     another owner's) claim fails with ErrStaleEpoch.
//   - Finalize, once a checkpoint's files are in the bucket: the idempotent
//     trigger. The workflow ID derives from (cluster, job, epoch,
//     checkpoint): a repeated call with the same content reaches the same
//     execution, running or completed, and never starts a second one; a call
//     with different content for the same identity fails with
//     ErrContentMismatch. Wait for the result and acknowledge the checkpoint
//     to sinks only when its Phase is contract.Published. WaitProgress
//     also reports phase changes (the command-line tool's --wait); Status
//     answers the workflow's "status" query. A caller that only knows the
//     identity uses Client.Attach or Client.Status.
//   - ListStuck, for an operator: executions that have stayed in one
//     running phase for longer than a threshold, Verifying (their store
//     does not answer) or any other (Persisting: the bucket fails).
//     StuckQuery is the same filter for the Web UI and `temporal workflow
//     list --query`. Each comes with its last error, the pending
//     activity's last failure (PendingActivities describes one execution).
//     ListStuckRetirements lists the retirements running that long;
//     Describe is one finalization as the server knows it, for when no
//     worker answers Status.
//   - Signalable, then Finalization.RetryNow or Finalization.Abandon, for an
//     operator: the signals a stuck finalization reads (Persisting,
//     Verifying, Discarding); ErrNotSignalable when it is in another phase
//     or ended (nothing sent).
//   - Retire, before a job's checkpoint ID space restarts.
//
// Connection holds the dial settings (address, namespace, TLS, API key) the
// command-line tool (client/cmd/finalizer) takes from flags and the worker's
// environment variables.
//
// Failure semantics. Three kinds of error mean that nothing happened: a
// request refused before anything was sent (ErrInvalidRequest, naming the
// field); ErrContentMismatch (nothing new started, the existing execution
// runs on); and a *RejectedError, the store's definite refusal of a claim
// or retirement (errors.Is ErrRejected, and ErrStaleEpoch, ErrRetired, ...
// by its type). Any other error (a timeout, a lost connection, a cancelled
// context) says nothing about the server's side: the claim or finalization
// may have started, or even finished. Every call is safe to repeat with the
// same input, and repeating is the way to find out: Finalize attaches to the
// execution the first call started, ClaimEpoch of the epoch the caller
// already holds succeeds. A finalization never runs twice: one an operator
// terminated stays terminated (its state where it was), and Wait on it
// returns an error.
package client
