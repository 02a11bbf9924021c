// Package workflows holds the deterministic Temporal workflows of the
// checkpoint finalizer; they do no I/O, the activities do.
//
// FinalizeCheckpoint finalizes one checkpoint (docs/design.md steps 1-5):
// Persisting -> Publishing -> Published, or -> Verifying after any Unknown,
// or -> Discarding -> Discarded after a definite rejection. After an Unknown
// the only way to a discard is a fenced Absent from Verify; a rejection that
// follows an Unknown goes to Verify too, because the earlier attempt may have
// landed. Verify retries without limit: a finalization whose store does not
// answer stays open in Verifying, visible, for days if need be. An operator
// can retry it at once or abandon it; abandoning keeps the state. Nothing
// forces a discard without a fenced Absent.
//
// JobCoordinator is the one subsumption owner of a job. Finalizations report
// to it once Published; it counts the references the store holds, keeps the
// newest Retention of them and the newest non-savepoint, and removes the rest,
// oldest first: subsume (tombstone + watermark, conditional on the epoch),
// confirm, discard; on the fast path all of a pass's removals in one durable
// RemoveCheckpoints activity, else each through a SubsumeCheckpoint child
// workflow of its own.
//
// The reconciler, which compares the HA store with the state bucket and
// repairs what finalizations left behind, is a package of its own
// (workflows/reconcile, with its activities in activities/reconcile).
//
// Every workflow upserts search attributes at each phase change and answers
// the "status" query, so a stuck one is found in the Temporal Web UI. The
// fast path (fastpath.go) runs an uneventful finalization in one workflow
// task, with local activities, and lists only the phases that outlast it.
package workflows
