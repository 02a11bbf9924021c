package invariants

import (
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Restore is the restore point one claim answered, kept to be judged once
// every finalization has ended.
type Restore struct {
	Job   stores.JobID
	Epoch uint64 // the epoch claimed
	// Floor is the last epoch of the ID's retired incarnations at the
	// claim: finalizations at or below it are another incarnation's.
	Floor uint64
	Point contract.RestorePoint
}

// JudgeRestores judges every claim's restore point against the outcomes:
// it resolves (I1 at the moment of the claim), and no finalization of an
// older epoch of the same incarnation ended Published with a checkpoint
// above it: such a publish either landed before the claim's read, and the
// newest reference is at least that checkpoint, or landed after the claim
// fenced its epoch, which must never happen. It counts the restore points
// by state and the Published finalizations judged against one.
func (j *Judge) JudgeRestores(seen []Restore, fins []Finalization) (counts map[string]int, judged int) {
	counts = map[string]int{}
	for _, s := range seen {
		counts[string(s.Point.State)]++
		var latest uint64
		if s.Point.Latest != nil {
			latest = s.Point.Latest.Checkpoint
		}
		if s.Point.State == contract.RestoreDangling {
			j.Violation("I1", s.Job.String(), "the claim of epoch %d answered checkpoint %d dangling: %s", s.Epoch, latest, s.Point.Dangling)
		}
		for _, f := range fins {
			if f.Request.CheckpointID().JobID != s.Job || f.Request.Epoch <= s.Floor || f.Request.Epoch >= s.Epoch {
				continue
			}
			if f.Result.Phase != contract.Published {
				continue
			}
			judged++
			if f.Request.Checkpoint > latest {
				j.Violation("recovery", f.Subject(), "ended Published under epoch %d, but the claim of epoch %d answered the restore point %d (%s): the publish landed behind the claim",
					f.Request.Epoch, s.Epoch, latest, s.Point.State)
			}
		}
	}
	return counts, judged
}
