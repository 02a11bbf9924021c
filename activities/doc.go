// Package activities holds the Temporal activities of the checkpoint
// finalizer. They are thin and idempotent: most call one store operation
// and translate its outcome into a Temporal error, and nothing else. The
// deletes (Discard, RemoveCheckpoints) run the guard instead: read the
// handle, fence the checkpoint's key, read the key again, then delete, in
// one activity so that nothing comes between the read and the delete;
// RestorePoint reads the job and its newest references.
//
//   - Published (nil) is success.
//   - Rejected is a non-retryable application error whose type names the
//     reason ("Rejected.StaleEpoch", "Rejected.Fenced", ...; see contract.RejectionType).
//   - Unknown is a retryable application error of type "Unknown"
//     ("Unknown.CorruptState" when the store holds a state it refuses to
//     decide on, see contract.UnknownType). A publish
//     rejected on a retry of the same attempt is "Unknown.RejectedAfterRetry"
//     (non-retryable): the earlier try may have landed, so the workflow must
//     verify. Workflows treat every failure that is not a Rejected type,
//     timeouts included, as Unknown.
//
// Every delete goes through the one guard (Guard, guard.go): a
// finalization's Discard, a coordinator's RemoveCheckpoints and the
// reconciler's DiscardOrphan (activities/reconcile, which also fails
// through Translate). Why it is enough is in docs/design.md.
package activities
