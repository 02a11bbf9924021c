package stores

import (
	"errors"
	"fmt"
)

// Definite rejections: the write did not happen.
var (
	// ErrStaleEpoch: the job's current epoch is not the caller's (a newer
	// leader claimed it, or the caller never claimed it).
	ErrStaleEpoch = errors.New("stale epoch")
	// ErrConflict: the key holds another finalization's token (or, for a
	// quarantine, not the caller's published reference).
	ErrConflict = errors.New("key holds another token")
	// ErrFenced: a tombstone covers the attempt.
	ErrFenced = errors.New("attempt fenced by tombstone")
	// ErrBelowWatermark: the checkpoint is at or below the job's subsumption watermark.
	ErrBelowWatermark = errors.New("checkpoint at or below subsumption watermark")
	// ErrRetired: the job was retired; its tombstones must be collected before reuse.
	ErrRetired = errors.New("job retired")
	// ErrTooLarge: the encoded value exceeds the backend's size limit.
	ErrTooLarge = errors.New("reference too large")
	// ErrInvalid: the input breaks a validation rule; see InvalidError.
	ErrInvalid = errors.New("invalid input")
	// ErrForbidden: the store refused the caller's credentials for the write.
	ErrForbidden = errors.New("forbidden by the store's access control")
)

// ErrHandleConflict: a handle blob's key in the state bucket holds a
// different valid handle; nothing was written or deleted. It is the
// bucket's definite refusal, not a reference store's, so OutcomeOf does not
// count it; it lives here so that the workflow contract's one table of
// rejections can name it.
var ErrHandleConflict = errors.New("key holds a different state handle")

// ErrCorruptState: what the store holds for a job is missing, malformed or
// not ours (a job state without its version or fields, an annotation
// removed by hand, an entry without token or since, another program's node
// under our root). Nothing is decided on it: the outcome is Unknown, so a
// finalization parks in Verifying, visible, and retries until an operator
// repairs the store, instead of reading a zero state or being Rejected.
var ErrCorruptState = errors.New("store holds a missing, malformed or foreign state")

// corrupt is an ErrCorruptState saying what is wrong; the backend adds where.
func corrupt(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, ErrCorruptState)...)
}

// clip quotes stored bytes for a message, cut to a readable length.
func clip(b []byte) string {
	const max = 120
	if len(b) > max {
		return fmt.Sprintf("%q... (%d bytes)", b[:max], len(b))
	}
	return fmt.Sprintf("%q", b)
}

// ErrUnknown marks a failure whose outcome is unknown: the write may have
// landed. It is never a rejection.
var ErrUnknown = errors.New("outcome unknown")

// Outcome is the three-way result of a mutating store call.
type Outcome int

const (
	// Unknown is the zero value on purpose: an unclassified failure is never
	// mistaken for a definite one.
	Unknown Outcome = iota
	Published
	Rejected
)

func (o Outcome) String() string {
	switch o {
	case Published:
		return "Published"
	case Rejected:
		return "Rejected"
	default:
		return "Unknown"
	}
}

var definite = []error{ErrStaleEpoch, ErrConflict, ErrFenced, ErrBelowWatermark, ErrRetired, ErrTooLarge, ErrInvalid, ErrForbidden}

// OutcomeOf classifies the error of a mutating call. nil is Published; an
// error wrapping a definite sentinel is Rejected, unless it is also marked
// ErrUnknown or ErrCorruptState; everything else is Unknown.
func OutcomeOf(err error) Outcome {
	if err == nil {
		return Published
	}
	if errors.Is(err, ErrUnknown) || errors.Is(err, ErrCorruptState) {
		return Unknown
	}
	for _, d := range definite {
		if errors.Is(err, d) {
			return Rejected
		}
	}
	return Unknown
}

// Unknownf wraps cause as an Unknown outcome of op. Backends use it for
// connection loss, timeouts, session events and every error they cannot
// prove definite.
func Unknownf(cause error, format string, args ...any) error {
	return &unknownError{op: fmt.Sprintf(format, args...), cause: cause}
}

type unknownError struct {
	op    string
	cause error
}

func (e *unknownError) Error() string { return e.op + ": outcome unknown: " + e.cause.Error() }

// Is makes errors.Is(err, ErrUnknown) hold without exposing the cause's
// own sentinels as a rejection: an ambiguous "node exists" stays Unknown.
func (e *unknownError) Is(target error) bool { return target == ErrUnknown }
func (e *unknownError) Unwrap() error        { return e.cause }

// InvalidError names the field and the rule a request broke. It matches
// ErrInvalid.
type InvalidError struct {
	Field string
	Rule  string
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("invalid %s: %s", e.Field, e.Rule)
}

func (e *InvalidError) Is(target error) bool { return target == ErrInvalid }

func invalid(field, format string, args ...any) error {
	return &InvalidError{Field: field, Rule: fmt.Sprintf(format, args...)}
}

// ErrNotStanding: the caller's claim is not the job's standing claim. Such
// a caller may neither fence the checkpoint's key nor decide its directory,
// above the watermark or at or below it (docs/design.md, "Only the
// standing claim's own finalization deletes, and only what it wrote"). It
// is a decision of the activities, not a store outcome: OutcomeOf does not
// count it.
var ErrNotStanding = errors.New("epoch is not the job's standing claim")
