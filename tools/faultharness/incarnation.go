package faultharness

import "github.com/checkpoint-finalizer/finalizer/tools/faultharness/invariants"

// retiredIncarnation returns the retirement that ended the incarnation of
// epoch, false when epoch belongs to the current one.
func (j *job) retiredIncarnation(epoch uint64) (invariants.Retirement, bool) {
	if j == nil {
		return invariants.Retirement{}, false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, rt := range j.retired {
		if epoch <= rt.UpTo {
			return rt, true
		}
	}
	return invariants.Retirement{}, false
}

// active reports whether the job has a current incarnation: not stuck
// retired.
func (j *job) active() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return !j.stuck
}
