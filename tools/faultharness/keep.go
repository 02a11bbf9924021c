package faultharness

import (
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// Why state at rest without a reference stays, in the report's words.
const (
	keptSavepoint = "savepoint"
	keptAbandoned = "abandoned"
	// keptRetained: a checkpoint of an incarnation retired with its
	// checkpoints retained for the operator.
	keptRetained = "retained"
	// keptReported: the reconciler reported it and kept it (a previous
	// incarnation's, no finalization found): reported as an orphan.
	keptReported = "reported"
)

// keptBy says why a checkpoint's unreferenced state stays, "" when
// nothing keeps it (a leak, I3). Every handle blob must be kept; data
// without any handle is kept by a kept finalization of the checkpoint.
func (j *judge) keptBy(s *stateAtRest, fins []*finalization) string {
	why := ""
	for _, key := range s.handles {
		if why = j.handleKeptBy(key, fins); why == "" {
			return ""
		}
	}
	if why != "" {
		return why
	}
	for _, f := range fins {
		if w := finalizationKeeps(f); w != "" {
			return w
		}
	}
	return ""
}

// handleKeptBy says why an unreferenced handle blob stays.
func (j *judge) handleKeptBy(key string, fins []*finalization) string {
	id, epoch, err := blobstate.ParseKey(key)
	if err != nil {
		return ""
	}
	for _, f := range fins {
		if f.req.Epoch == epoch {
			if w := finalizationKeeps(f); w != "" {
				return w
			}
		}
	}
	if rt, ok := j.retired(id.JobID, epoch); ok && !rt.discard {
		return keptRetained
	}
	if j.wasReported(key) {
		return keptReported
	}
	return ""
}

// allReported reports whether the reconciler reported every handle blob
// of the state as kept.
func (j *judge) allReported(s *stateAtRest) bool {
	for _, key := range s.handles {
		if !j.wasReported(key) {
			return false
		}
	}
	return true
}

// finalizationKeeps says why a finalization's state stays by design.
func finalizationKeeps(f *finalization) string {
	res, _, _ := f.outcome()
	switch {
	case f.req.Savepoint:
		return keptSavepoint
	case res.Phase == contract.Abandoned:
		return keptAbandoned
	}
	return ""
}

// jobOf is the run's job of that ID, nil for none (an intruder).
func (r *run) jobOf(id stores.JobID) *job {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, j := range r.all {
		if j.id == id {
			return j
		}
	}
	return nil
}
