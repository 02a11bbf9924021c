package invariants

import (
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// Why state at rest without a reference stays, in the report's words.
const (
	KeptSavepoint = "savepoint"
	KeptAbandoned = "abandoned"
	// KeptRetained: a checkpoint of an incarnation retired with its
	// checkpoints retained for the operator.
	KeptRetained = "retained"
	// KeptReported: the reconciler reported it and kept it (a previous
	// incarnation's, no finalization found): reported as an orphan.
	KeptReported = "reported"
)

// keptBy says why a checkpoint's unreferenced state stays, "" when
// nothing keeps it (a leak, I3). Every handle blob must be kept; data
// without any handle is kept by a kept finalization of the checkpoint.
func (j *Judge) keptBy(s *stateAtRest, fins []Finalization) string {
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
func (j *Judge) handleKeptBy(key string, fins []Finalization) string {
	id, epoch, err := blobstate.ParseKey(key)
	if err != nil {
		return ""
	}
	for _, f := range fins {
		if f.Request.Epoch == epoch {
			if w := finalizationKeeps(f); w != "" {
				return w
			}
		}
	}
	if rt, ok := j.retired(id.JobID, epoch); ok && !rt.Discard {
		return KeptRetained
	}
	if j.wasReported(key) {
		return KeptReported
	}
	return ""
}

// allReported reports whether the reconciler reported every handle blob
// of the state as kept.
func (j *Judge) allReported(s *stateAtRest) bool {
	for _, key := range s.handles {
		if !j.wasReported(key) {
			return false
		}
	}
	return true
}

// finalizationKeeps says why a finalization's state stays by design.
func finalizationKeeps(f Finalization) string {
	switch {
	case f.Request.Savepoint:
		return KeptSavepoint
	case f.Result.Phase == contract.Abandoned:
		return KeptAbandoned
	}
	return ""
}
