// Package reconcile holds the reconciler's Temporal activities. They take
// stock of a cluster's HA store and state bucket, job by job, and carry out
// the repairs the Reconcile workflow (workflows/reconcile) decides; the
// workflow decides, they report what they find. Where the workflow package
// is imported too, this one is imported as reconcileacts.
//
// Contract: the activity type names are the method names of Activities
// (ListClusterJobs, InventoryJob, DescribeFinalizations, QuarantineDangling,
// DiscardOrphan, CollectTombstones), and they and their payloads' JSON are
// on the wire: recorded histories and running executions name them.
//
// Every input names its cluster (it embeds stores.JobID or
// stores.CheckpointID, or has a Cluster field), and every activity first
// refuses a cluster the worker's layout does not serve (Rejected.Invalid),
// before anything is read. No cutoff in an input is trusted: each is an
// upper bound, and the activities count the worker's Floors back from its
// own clock, so that no run, however started, collects a tombstone or
// judges a handle younger than the worker allows.
//
// Failure semantics are the finalizer's (package activities, through
// activities.Translate): nil is success, a definite refusal is a
// non-retryable Rejected.* error, anything else is retryable and says
// nothing. A worker that registers Activities without a field or with
// invalid Floors fails every run at once, non-retryably (NotWired). The
// inventories write nothing.
// Each destructive activity re-checks its own precondition right before it
// acts, so that a decision made on an older inventory never deletes what
// has changed since: QuarantineDangling reads the handle again and writes
// one compare-and-set on the token; DiscardOrphan deletes only through the
// finalizer's delete guard (activities.Guard: a fence covering every
// attempt, the key read again, then the delete); CollectTombstones leaves
// the watermark rule to the store. Why that is enough (invariants I2, I3,
// I6) is in docs/design.md.
package reconcile
