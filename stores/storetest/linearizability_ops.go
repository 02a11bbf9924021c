package storetest

import (
	"errors"
	"fmt"
	"time"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// The calls of the linearizability workload and their answers: porcupine's
// inputs and outputs. Reads are calls too: they are what exposes a write
// that landed where the specification says it cannot.

type opKind int

const (
	opClaim opKind = iota
	opPublish
	opVerify
	opSubsume
	opRetire
	opCollect
	opCollectSubsumed
	opQuarantine
	opRead
	opReadJob
	opList
	opListEntries
	opListJobs
)

var opNames = [...]string{"Claim", "Publish", "Verify", "Subsume", "Retire", "Collect", "CollectSubsumed", "Quarantine",
	"Read", "ReadJob", "List", "ListEntries", "ListJobs"}

func (k opKind) String() string { return opNames[k] }

// mutates reports whether the call may write: one whose answer is lost is
// possibly applied. The others are pure reads, and a lost read says nothing.
func (k opKind) mutates() bool { return k <= opQuarantine }

// call is one store call; only the fields its kind uses are set.
type call struct {
	Kind    opKind
	Job     stores.JobID
	Key     uint64
	Epoch   uint64
	Owner   string
	Token   string
	Attempt uint32
	// Keep: Retire keeps the state (ReasonRetained).
	Keep bool
	// Claimant: a publish names Owner, the client's own, as its epoch's
	// claimant (under another client's claim it is an impersonation the
	// store must refuse); otherwise it is decided on the epoch alone.
	Claimant bool
	// Aged: CollectTombstones with a cutoff an hour after the call, so
	// every tombstone is old enough; otherwise an hour before the test
	// began, so none is.
	Aged bool
}

func (c call) id() stores.CheckpointID { return stores.CheckpointID{JobID: c.Job, Checkpoint: c.Key} }

// publication derives the handle from the token: a token's attempts all
// point at one handle, as a finalization's do.
func (c call) publication() stores.Publication {
	p := stores.Publication{CheckpointID: c.id(), Epoch: c.Epoch, Reference: stores.Reference{
		Handle: fmt.Sprintf("handles/%s/%s.json", c.Job, c.Token), Token: c.Token, Attempt: c.Attempt,
	}}
	if c.Claimant {
		p.Owner = c.Owner
	}
	return p
}

// cutoff is CollectTombstones' olderThan: on the backend now is the wall
// clock at the call and start the test's start; the model passes modelNow
// for both, where every tombstone's Since is modelNow.
func (c call) cutoff(now, start time.Time) time.Time {
	if c.Aged {
		return now.Add(time.Hour)
	}
	return start.Add(-time.Hour)
}

// answer is what a call returned. Exactly one of Unknown, Rejection and
// the value fields of the call's kind carries the answer.
type answer struct {
	// Unknown: the outcome is unknown (stores.Unknown): possibly applied.
	Unknown bool
	// Rejection names the sentinel of a definite rejection.
	Rejection string
	// Err is the error's text, for the visualization.
	Err       string
	Verdict   stores.Verdict
	Count     int
	Entry     slot
	State     stores.JobState
	Keys      keys
	Listed    bool
	Malformed string
}

// sentinels are the definite rejections, in the order rejectionOf tries them.
var sentinels = []error{stores.ErrStaleEpoch, stores.ErrConflict, stores.ErrFenced, stores.ErrBelowWatermark,
	stores.ErrRetired, stores.ErrTooLarge, stores.ErrInvalid, stores.ErrForbidden}

// rejectionOf names the first sentinel err wraps; "" for nil.
func rejectionOf(err error) string {
	if err == nil {
		return ""
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	return "unclassified: " + err.Error()
}

// outcome is the answer of a call that failed or returned nil only.
func outcome(err error) answer {
	switch stores.OutcomeOf(err) {
	case stores.Published:
		return answer{}
	case stores.Rejected:
		return answer{Rejection: rejectionOf(err), Err: err.Error()}
	}
	return answer{Unknown: true, Err: err.Error()}
}
