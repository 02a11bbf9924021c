package lifecycle

import (
	"time"

	"fmt"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// phase is where a simulated FinalizeCheckpoint stands: the activity its
// next step runs.
type phase int

const (
	phasePersist phase = iota
	phasePublish
	phaseVerify
	phaseDiscard
	phasePublishedBefore
	phaseEnded
)

// fin is one FinalizeCheckpoint execution as the simulation runs it: the
// workflow's state between activities (workflows/finalize.go), which
// Temporal keeps durable.
type fin struct {
	id  int
	req contract.FinalizeRequest
	w   *worker
	// local: the execution runs the fast path (workflows/fastpath.go): its
	// first workflow task runs persist and the first publish as local
	// activities, lost whole when its worker crashes.
	local bool
	// files: what its job manager wrote for it (empty for a request that
	// names another finalization's files).
	files []string
	// inc is its job's incarnation when it was triggered.
	inc int
	// overwritten: a later job manager wrote its files again, into the
	// same checkpoint directory (a job ID's new life restarting its
	// checkpoint IDs): what became of them is no finalizer's doing.
	overwritten bool
	// impersonates: a replay under the standing claim's own epoch and
	// owner, which every history shows: to the worker it is the standing
	// leader (docs/design.md, "The owner is an identity, not a credential").
	impersonates bool
	// copied: started under a workflow ID that is not its request's own,
	// or as a new run of a closed one: its answer goes to whoever started
	// the copy, never to the job manager.
	copied bool
	// terminated: a start's ID conflict policy ended it with no result.
	terminated bool
	// abandoned: an operator abandoned it; its state is kept by the mark
	// beside its handle until an operator releases it.
	abandoned bool
	// keptFiles are its files that existed when it was abandoned.
	keptFiles []string

	phase    phase
	attempts uint32
	// tries counts Temporal's attempts of the current activity.
	tries     int
	unfenced  bool
	handleKey string
	// parked: a verify failed as invalid; the execution waits, visible as
	// Verifying, for an operator.
	parked bool
	result contract.Phase
	reason string
	// judged: its answer was checked when it ended, at endedAt on the
	// simulated clock.
	judged  bool
	endedAt time.Time
}

func (f *fin) ended() bool { return f.phase == phaseEnded }

// token is the finalization's token.
func (f *fin) token() string { return f.req.Token() }

// terminate ends the execution where it stands, with no result, as
// Temporal's termination does: what it wrote stays for the reconciler.
func (f *fin) terminate() {
	f.phase, f.terminated, f.reason = phaseEnded, true, "terminated"
	f.w.seen["finalizations terminated by a start's conflict policy"]++
}

func (f *fin) end(p contract.Phase, reason string) string {
	f.phase, f.result, f.reason = phaseEnded, p, reason
	f.w.seen["finalizations "+string(p)]++
	return fmt.Sprintf("ends %s %s", p, clip(reason))
}

// retry keeps the finalization at its activity: Temporal retries it.
func (f *fin) retry(what string, err error) string {
	f.tries++
	return fmt.Sprintf("%s fails, retried: %s", what, clip(contract.FailureMessage(err)))
}

// firstTask reports whether a fast-path execution is still in its first
// workflow task, whose local activities a crash loses.
func (f *fin) firstTask() bool {
	return f.local && !f.ended() && (f.phase == phasePersist || f.phase == phasePublish) && f.attempts <= 1
}

// crash loses the first workflow task of a fast-path execution: the task's
// retry runs it again from the start, persist and the first publish
// again, as a first attempt.
func (f *fin) crash() string {
	if !f.firstTask() {
		return "nothing to lose: its progress is in the history"
	}
	f.phase, f.attempts, f.tries, f.unfenced, f.handleKey = phasePersist, 0, 0, false, ""
	return "its first workflow task is lost and runs again"
}

// step runs the finalization's next activity attempt with fault f.
func (f *fin) step(ft fault) string {
	switch f.phase {
	case phasePersist:
		return f.persist(ft)
	case phasePublish:
		return f.publish(ft)
	case phaseVerify:
		return f.verify(ft)
	case phaseDiscard:
		return f.discard(ft)
	case phasePublishedBefore:
		return f.publishedBefore(ft)
	}
	return "already ended"
}

// start is the workflow's first step: an invalid request fails before
// any activity (an execution of the "claim-owner" version: a request
// without an owner is invalid too).
func (f *fin) start() string {
	if err := f.req.Validate(); err != nil {
		return f.end(contract.Failed, err.Error())
	}
	return "started"
}

func (f *fin) persist(ft fault) string {
	res, err := call[activities.PersistResult](f.w, ft, asLocal, f.w.acts.PersistHandle, activities.HandleOf(f.req))
	switch {
	case err == nil:
		f.handleKey, f.phase, f.tries, f.attempts = res.HandleKey, phasePublish, 0, 1
		return "persisted " + res.HandleKey
	case retryable(err):
		return f.retry("persist", err)
	case isDataMissing(err):
		// A fast-path task retried after its worker died, or another
		// execution of the token (a copy under another workflow ID): the
		// lost run or the copy may have published, and the checkpoint
		// been subsumed since (workflows/finalize.go, the
		// "published-before-regular" change).
		f.phase, f.tries = phasePublishedBefore, 0
		return "persist finds its data missing: asks whether it was published before"
	}
	return f.end(contract.Failed, contract.FailureMessage(err))
}

func (f *fin) publication() stores.Publication {
	return stores.Publication{CheckpointID: f.req.CheckpointID(), Epoch: f.req.Epoch, Owner: f.req.Owner, Reference: stores.Reference{
		Handle: f.handleKey, Token: f.token(), Attempt: f.attempts, Savepoint: f.req.Savepoint,
	}}
}

func (f *fin) publish(ft fault) string {
	// Only the first attempt is on the fast path (workflows/finalize.go).
	d := asFirstRegular
	if f.tries > 0 || (f.local && f.attempts == 1) {
		d = asLocal
	}
	_, err := call[struct{}](f.w, ft, d, f.w.acts.Publish, f.publication())
	if err != nil && retryable(err) && f.tries+1 < publishTries {
		return f.retry(fmt.Sprintf("publish attempt %d", f.attempts), err)
	}
	next, unfenced := afterPublish(outcomeOf(err), f.unfenced)
	f.phase, f.unfenced, f.tries = next, unfenced, 0
	switch next {
	case phaseEnded:
		return f.end(contract.Published, "")
	case phaseDiscard:
		f.reason = fmt.Sprintf("publish attempt %d rejected: %s", f.attempts, contract.FailureMessage(err))
		return "publish rejected: discards (" + clip(contract.FailureMessage(err)) + ")"
	}
	return fmt.Sprintf("publish attempt %d: %s, verifies", f.attempts, outcomeOf(err))
}

func (f *fin) verify(ft fault) string {
	in := activities.VerifyInput{CheckpointID: f.req.CheckpointID(), Token: f.token(), Attempt: f.attempts, Epoch: f.req.Epoch, Owner: f.req.Owner}
	v, err := call[stores.Verdict](f.w, ft, asLocal, f.w.acts.Verify, in)
	switch {
	case err != nil && isInvalid(err):
		f.parked = true
		return "verify invalid: parked, visible as Verifying"
	case err != nil:
		return f.retry("verify", err)
	}
	f.tries = 0
	f.phase = afterVerify(v, f.attempts, f.req.MaxAttempts())
	switch f.phase {
	case phaseEnded:
		return f.end(contract.Published, "verified present")
	case phaseDiscard:
		f.unfenced = false
		f.reason = fmt.Sprintf("absent after %d publish attempts, fenced", f.attempts)
		return "verify: Absent, fenced; attempts exhausted: discards"
	}
	f.unfenced = false
	f.attempts++
	return fmt.Sprintf("verify: Absent, fenced; republishes as attempt %d", f.attempts)
}

func (f *fin) discard(ft fault) string {
	res, err := call[activities.DiscardResult](f.w, ft, asLocal, f.w.acts.Discard, activities.HandleKey(f.handleKey))
	switch {
	case err != nil && retryable(err):
		return f.retry("discard", err)
	case err != nil:
		return f.end(contract.Abandoned, "discard refused, state kept: "+contract.FailureMessage(err))
	case res.Published:
		return f.end(contract.Published, "found published when about to discard: "+f.reason)
	case res.Kept != "":
		return f.end(contract.Discarded, f.reason+"; its data stays: "+res.Kept)
	}
	return f.end(contract.Discarded, fmt.Sprintf("%s (%d objects deleted)", f.reason, res.DeletedObjects))
}

func (f *fin) publishedBefore(ft fault) string {
	in := activities.VerifyInput{CheckpointID: f.req.CheckpointID(), Token: f.token(), Attempt: 1, Epoch: f.req.Epoch, Owner: f.req.Owner}
	published, err := call[bool](f.w, ft, asLocal, f.w.acts.PublishedBefore, in)
	switch {
	case err != nil && retryable(err):
		return f.retry("published-before", err)
	case err == nil && published:
		return f.end(contract.Published, contract.PublishedBeforeReason)
	}
	return f.end(contract.Failed, "its data is missing and it was not published before")
}
