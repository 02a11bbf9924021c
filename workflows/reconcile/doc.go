// Package reconcile holds the reconciler's deterministic Temporal
// workflow; it does no I/O, its activities (activities/reconcile) do.
//
// Workflow, registered as contract.ReconcileWorkflow and started per
// cluster by a Temporal Schedule (or once by hand), compares the HA store
// with the state bucket job by job: it reports dangling references and
// quarantines them when asked, discards orphaned state whose finalization
// is closed behind a fence covering every attempt of its token, and
// collects old tombstones; a dry run unless told to apply. Its request,
// result and status query are contract.ReconcileRequest and
// contract.ReconcileReport; those, the workflow's name and its activities'
// names are on the wire and must not change.
//
// Failure semantics: an invalid request fails the run (Rejected.Invalid)
// before anything is read, and so does a carry in a run that was not
// continued as new, or one naming another cluster's jobs; a cluster whose
// jobs cannot be listed fails it after the retries. Any other failure (an inventory, a describe, a
// quarantine, a discard or a collection that still fails after its few
// retries) settles only that item: the report lists it as an error and the
// run goes on, and what failed deleted nothing. Only a closed finalization,
// confirmed by its workflow ID, or one Temporal no longer knows (its
// history expired), lets an orphan's state go, and only through the delete
// guard, whose fence makes the store's answer enough; savepoints, abandoned
// or retained state, a previous incarnation's and anything without a
// definite answer are reported and kept (invariants I2 and I3 of
// docs/design.md). A long run continues as
// new with its report and the jobs left.
package reconcile
