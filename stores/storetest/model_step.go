package storetest

import (
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// step is the sequential specification: it applies one call to the model
// by asking the decision of stores/decide.go that the backend asks, and
// tells whether the backend's answer is the one the decision gives. It
// re-implements none of them. A call whose outcome is unknown agrees with
// any decision and applies it: porcupine may place it anywhere up to the
// end of the history, and placed after every call that could observe it,
// it stands for a write that never landed.
func step(m jobModel, c call, a answer) (bool, jobModel) {
	switch c.Kind {
	case opClaim:
		next, err := stores.DecideClaim(m.Job, m.entries(), c.Epoch, c.Owner)
		return a.agrees(err), m.withJob(next)
	case opPublish:
		e, err := stores.DecidePublish(m.Job, m.Keys[c.Key].entry(c.Key), c.publication())
		return a.agrees(err), m.with(e)
	case opVerify:
		v, fence := stores.DecideVerify(m.Keys[c.Key].entry(c.Key), c.Token, c.Attempt, modelNow)
		return a.answers(a.Verdict == v), m.with(fence)
	case opSubsume:
		e, next, err := stores.DecideSubsume(m.Job, m.Keys[c.Key].entry(c.Key), c.Key, c.Epoch, modelNow)
		return a.agrees(err), m.with(e).withJob(next)
	case opRetire:
		writes, next, err := stores.DecideRetire(m.Job, m.entries(), c.Epoch, c.Keep, modelNow)
		for _, w := range writes {
			m = m.with(&w)
		}
		return a.agrees(err), m.withJob(next)
	case opCollect:
		drop, next := stores.DecideCollect(m.Job, m.entries(), c.cutoff(modelNow, modelNow))
		for _, n := range drop {
			m.Keys[n] = slot{}
		}
		return a.answers(a.Count == len(drop)), m.withJob(next)
	case opCollectSubsumed:
		drop, err := stores.DecideCollectSubsumed(m.Job, m.Keys[c.Key].entry(c.Key), c.Token)
		if drop {
			m.Keys[c.Key] = slot{}
		}
		return a.agrees(err), m
	case opQuarantine:
		e, err := stores.DecideQuarantine(m.Keys[c.Key].entry(c.Key), c.Token, modelNow)
		return a.agrees(err), m.with(e)
	case opRead:
		return a.answers(a.Entry == m.Keys[c.Key]), m
	case opReadJob:
		return a.answers(a.State == m.Job), m
	case opList:
		return a.answers(a.Keys == m.published()), m
	case opListEntries:
		return a.answers(a.Keys == m.Keys), m
	case opListJobs:
		return a.answers(a.Listed == stores.JobKnown(m.Job, len(m.entries()))), m
	}
	panic("storetest: unknown call kind")
}

// agrees reports whether a mutating call's answer is the decision's: nil
// is Published, a rejection must match it by sentinel.
func (a answer) agrees(decided error) bool {
	return a.Unknown || (a.Malformed == "" && a.Rejection == rejectionOf(decided))
}

// answers reports whether a call that answers with a value answered ok
// (the value the model computes) and nothing else.
func (a answer) answers(ok bool) bool {
	return a.Unknown || (a.Malformed == "" && a.Rejection == "" && ok)
}
