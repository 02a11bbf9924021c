package stores

import (
	"context"
	"errors"
	"time"
)

// Driver is what a backend implements: reading a job at one moment and
// committing a change conditional on that read. Everything else (input
// validation, the decisions of decide.go, retries after a lost
// compare-and-set and the naming of outcomes) is the Engine's, once for
// every backend. A driver translates its client's errors: a definite
// refusal wraps a sentinel of this package (ErrForbidden, ErrTooLarge), a
// lost compare-and-set wraps ErrRaced, and anything else is Unknown.
type Driver interface {
	// Load reads the job's state and the keys of scope. A key that is
	// missing reads as an Absent entry. What the store holds but this
	// package did not write is ErrCorruptState.
	Load(ctx context.Context, job JobID, scope Scope) (Snapshot, error)
	// Commit writes c, all of it or nothing, on condition that nothing
	// snap was read from has changed since: else ErrRaced, nothing written.
	Commit(ctx context.Context, snap Snapshot, c Change) error
	// Settle reports whether snap still shows the store as it is: nil when
	// what Load read is unchanged, so a decision that writes nothing (a
	// rejection, a write found done) holds at one moment; ErrRaced when it
	// changed. A driver whose Load reads one atomic view returns nil.
	Settle(ctx context.Context, snap Snapshot) error
}

// ErrRaced is a driver's lost compare-and-set: another writer changed what
// the decision was made on, and nothing was written. The Engine reads and
// decides again; a caller never sees it alone.
var ErrRaced = errors.New("lost a compare-and-set to a concurrent change")

// ErrContention is the cause of an Unknown outcome when every pass of a
// call lost its compare-and-set: nothing of it was written, but the caller
// verifies instead of trusting a count.
var ErrContention = errors.New("lost every compare-and-set to concurrent writers")

// ThrottledError is a lost pass the server asked to retry only after Wait
// (Kubernetes' 429 with Retry-After). It wraps ErrRaced.
type ThrottledError struct {
	Wait time.Duration
	Err  error
}

func (e *ThrottledError) Error() string { return "throttled: " + e.Err.Error() }
func (e *ThrottledError) Unwrap() []error {
	return []error{ErrRaced, e.Err}
}

// Scope says which keys of a job a decision reads besides its state.
type Scope struct {
	all       bool
	ifRetired bool
	key       uint64
}

// JobOnly reads the job's state alone.
func JobOnly() Scope { return Scope{} }

// KeyOf reads the job's state and checkpoint n's key.
func KeyOf(n uint64) Scope { return Scope{key: n} }

// AllKeys reads the job's state and every key of the job.
func AllKeys() Scope { return Scope{all: true} }

// KeysIfRetired reads the job's state, and every key of the job when the
// state is retired.
func KeysIfRetired() Scope { return Scope{ifRetired: true} }

// All reports whether the scope is every key of a job in state st.
func (s Scope) All(st JobState) bool { return s.all || s.ifRetired && st.Retired }

// Key is the one key of the scope, 0 when it has none or all.
func (s Scope) Key() uint64 { return s.key }

// Snapshot is a job as a driver's Load read it.
type Snapshot struct {
	Job   JobID
	State JobState
	// Entries are the keys of the scope in checkpoint order: for KeyOf
	// exactly one, Absent when the key is missing; for every key, those
	// that exist.
	Entries []Entry
	// Revision is the driver's precondition for Commit and Settle (a
	// resourceVersion, node versions, the bytes read); the Engine only
	// passes it back.
	Revision any
}

// Change is what one decision writes, applied by Commit all at once.
type Change struct {
	// State is the job's next state; nil leaves it as read.
	State *JobState
	// Put are the entries to write, each at its checkpoint's key.
	Put []Entry
	// Drop are the checkpoint keys to delete.
	Drop []uint64
	// LeaveFenceRoom asks a store of bounded size (a ConfigMap) to refuse
	// the change with ErrTooLarge unless a later fence still fits: a
	// publish must never make the verification of another attempt
	// impossible.
	LeaveFenceRoom bool
}

func (c Change) empty() bool { return c.State == nil && len(c.Put) == 0 && len(c.Drop) == 0 }
