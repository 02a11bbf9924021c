package faultharness

import (
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// restoreSeen is the restore point one claim answered, kept to be judged
// once every finalization has ended.
type restoreSeen struct {
	job   *job // nil for a claim observed outside the harness
	id    stores.JobID
	epoch uint64 // the epoch claimed
	// floor is the last epoch of the ID's retired incarnations at the
	// claim: finalizations at or below it are another incarnation's.
	floor uint64
	rp    contract.RestorePoint
}

func (r *run) sawRestore(j *job, epoch uint64, rp contract.RestorePoint) {
	seen := restoreSeen{job: j, id: j.id, epoch: epoch, rp: rp}
	j.mu.Lock()
	if n := len(j.retired); n > 0 {
		seen.floor = j.retired[n-1].upTo
	}
	j.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.restores = append(r.restores, seen)
}

// checkRestores judges every claim's restore point against the outcomes
// (judgeRestores) and counts them in the report.
func (r *run) checkRestores() {
	r.mu.Lock()
	seen := append([]restoreSeen(nil), r.restores...)
	r.mu.Unlock()
	counts, judged := r.checks().judgeRestores(seen, r.finalizations())
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rep.Lifecycle.RestorePoints, r.rep.Lifecycle.RestoreJudged = counts, judged
}

// judgeRestores judges every claim's restore point against the outcomes:
// it resolves (I1 at the moment of the claim), and no finalization of an
// older epoch of the same incarnation ended Published with a checkpoint
// above it: such a publish either landed before the claim's read, and the
// newest reference is at least that checkpoint, or landed after the claim
// fenced its epoch, which must never happen. It counts the restore points
// by state and the Published finalizations judged against one.
func (j *judge) judgeRestores(seen []restoreSeen, fins []*finalization) (counts map[string]int, judged int) {
	counts = map[string]int{}
	for _, s := range seen {
		counts[string(s.rp.State)]++
		var latest uint64
		if s.rp.Latest != nil {
			latest = s.rp.Latest.Checkpoint
		}
		if s.rp.State == contract.RestoreDangling {
			j.violation("I1", s.id.String(), "the claim of epoch %d answered checkpoint %d dangling: %s", s.epoch, latest, s.rp.Dangling)
		}
		for _, f := range fins {
			if f.req.CheckpointID().JobID != s.id || f.req.Epoch <= s.floor || f.req.Epoch >= s.epoch {
				continue
			}
			res, _, _ := f.outcome()
			if res.Phase != contract.Published {
				continue
			}
			judged++
			if f.req.Checkpoint > latest {
				j.violation("recovery", f.subject(), "ended Published under epoch %d, but the claim of epoch %d answered the restore point %d (%s): the publish landed behind the claim",
					f.req.Epoch, s.epoch, latest, s.rp.State)
			}
		}
	}
	return counts, judged
}

// lastRestore is the restore point of the job's latest claim.
func (r *run) lastRestore(j *job) contract.RestorePoint {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.restores) - 1; i >= 0; i-- {
		if r.restores[i].job == j {
			return r.restores[i].rp
		}
	}
	return contract.RestorePoint{}
}
