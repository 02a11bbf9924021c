// Package activities holds the Temporal activities of the checkpoint
// finalizer. They are thin and idempotent: each calls one store operation
// and translates its outcome into a Temporal error, and nothing else.
//
//   - Published (nil) is success.
//   - Rejected is a non-retryable application error whose type names the
//     reason ("Rejected.StaleEpoch", "Rejected.Fenced", ...; see contract.RejectionType).
//   - Unknown is a retryable application error of type "Unknown". A publish
//     rejected on a retry of the same attempt is "Unknown.RejectedAfterRetry"
//     (non-retryable): the earlier try may have landed, so the workflow must
//     verify. Workflows treat every failure that is not a Rejected type,
//     timeouts included, as Unknown.
//
// The reconciler's activities (reconcile*.go) take stock of a job's keys
// and handle blobs and report; each destructive one re-checks its own
// precondition right before it acts (a fence before a discard, a second
// read of the handle before a quarantine).
package activities
