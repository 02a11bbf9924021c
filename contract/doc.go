// Package contract is the workflow contract between job managers and the
// finalizer's worker: the names a caller starts, signals and queries
// (workflow types, task queue, signals, queries), the payloads they carry
// (requests, results, statuses, phases, the restore point, the reconcile
// report), the search attributes and memo keys a finalization is listed
// by, the identity derived from a request (workflow IDs, the token, the
// content hash), and the one table between the Rejected.* failure types
// and the store's errors (RejectionType, RejectionSentinel, Rejection).
//
// The worker's workflows and activities and the client all read these from
// here, so a name or a failure type is spelt once. The package imports only
// the stores package (identities, validation rules, the store's sentinel
// errors) and the Temporal SDK: a job manager that links it links neither
// the workflows nor the bucket's code.
//
// Everything here is on the wire: workflow and activity type names, JSON
// members and search attributes must not change, or the recorded histories
// (workflows/testdata/histories) stop replaying and running executions
// break. The JSON Schemas in schemas/ describe the same payloads for
// callers in other languages. Why the protocol is what it is (identity,
// epochs, publish, verify, fence, discard, and the invariants I1-I7) is in
// docs/design.md.
package contract
