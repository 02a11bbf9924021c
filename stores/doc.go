// Package stores defines the high-availability reference store of the
// checkpoint finalizer: the narrow interface every backend implements, its
// vocabulary (jobs, checkpoints, references, tombstones, epochs and
// watermarks) and its three-way failure semantics.
//
// A checkpoint key is absent, holds a published reference {token, attempt},
// or holds a tombstone {token, fenced-up-to attempt, reason}. Every mutating
// call ends in exactly one of three outcomes, read with OutcomeOf:
//
//   - Published: the call returned nil. The write happened, or the key
//     already held what the caller asked for (a retried call that finds its
//     own applied write is Published, never a conflict).
//   - Rejected: the error wraps one of the definite sentinels (ErrStaleEpoch,
//     ErrConflict, ErrFenced, ErrBelowWatermark, ErrRetired, ErrTooLarge,
//     ErrInvalid, ErrForbidden). The write definitely did not happen. Backends classify by
//     which condition failed after reading the current state, never by a bare
//     error code.
//   - Unknown: anything else, marked with ErrUnknown. The write may or may not
//     have landed, now or later. The caller must Verify, and may discard state
//     only once Verify answers Absent, which it does only after a tombstone
//     fence stands that no attempt up to the one verified can ever cross.
//
// The semantics live once, in the pure functions of decide.go, and the
// Engine applies them the same way over every backend: it validates the
// input, loads the job, decides, and commits the change with one
// compare-and-set, reading and deciding again when the compare-and-set
// lost. A backend is a Driver (load a job at one moment, commit a change
// conditional on that load, settle a decision that wrote nothing) that
// translates its client's errors, plus what only it can do (list a
// cluster's jobs, probe). Adding a store operation touches the Engine and
// no backend. The conformance suite in stores/storetest holds every backend
// to the semantics, and the linearizability checks hold each to decide.go.
package stores
