package faultharness

// retirement ends one incarnation of a job ID: the job manager retired
// the job at its last epoch; once the reconciler forgot it, a new job
// manager claims the ID above that epoch and restarts checkpoint IDs at 1,
// as Flink does for a fresh submission under a fixed job ID.
type retirement struct {
	// upTo is the incarnation's last epoch: every epoch at or below it
	// (down to the previous retirement's) is that incarnation's.
	upTo uint64
	// discard: the retirement asked the reconciler to discard the
	// checkpoints (DiscardCheckpoints); otherwise they are retained for
	// the operator, reported and never deleted.
	discard bool
}

// retiredIncarnation returns the retirement that ended the incarnation of
// epoch, false when epoch belongs to the current one.
func (j *job) retiredIncarnation(epoch uint64) (retirement, bool) {
	if j == nil {
		return retirement{}, false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, rt := range j.retired {
		if epoch <= rt.upTo {
			return rt, true
		}
	}
	return retirement{}, false
}

// active reports whether the job has a current incarnation: not stuck
// retired.
func (j *job) active() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return !j.stuck
}
