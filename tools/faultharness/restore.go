package faultharness

import (
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/invariants"
)

// restoreSeen is the restore point one of the run's claims answered.
type restoreSeen struct {
	job *job
	invariants.Restore
}

func (r *run) sawRestore(j *job, epoch uint64, rp contract.RestorePoint) {
	seen := restoreSeen{job: j, Restore: invariants.Restore{Job: j.id, Epoch: epoch, Point: rp}}
	j.mu.Lock()
	if n := len(j.retired); n > 0 {
		seen.Floor = j.retired[n-1].UpTo
	}
	j.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.restores = append(r.restores, seen)
}

// checkRestores judges every claim's restore point against the outcomes
// (Judge.JudgeRestores) and counts them in the report.
func (r *run) checkRestores() {
	r.mu.Lock()
	seen := make([]invariants.Restore, 0, len(r.restores))
	for _, s := range r.restores {
		seen = append(seen, s.Restore)
	}
	r.mu.Unlock()
	counts, judged := r.checks().JudgeRestores(seen, seenAll(r.finalizations()))
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rep.Lifecycle.RestorePoints, r.rep.Lifecycle.RestoreJudged = counts, judged
}

// lastRestore is the restore point of the job's latest claim.
func (r *run) lastRestore(j *job) contract.RestorePoint {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.restores) - 1; i >= 0; i-- {
		if r.restores[i].job == j {
			return r.restores[i].Point
		}
	}
	return contract.RestorePoint{}
}
