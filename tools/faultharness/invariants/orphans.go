package invariants

import (
	"context"
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Leftovers counts the references over the jobs' retention and the
// checkpoints whose state lies without a reference.
func (j *Judge) Leftovers(ctx context.Context, jobs []stores.JobID, byID map[stores.CheckpointID][]Finalization) (int, error) {
	n, err := j.overRetention(ctx, jobs)
	if err != nil {
		return 0, err
	}
	orphans, _, err := j.orphans(ctx, byID)
	return n + len(orphans), err
}

// orphan is state at rest that no reference points at and nothing keeps.
type orphan struct {
	state  *stateAtRest
	entry  stores.Entry
	reason string
}

// orphans lists the checkpoints whose state lies in the bucket while their
// key holds no reference, apart from what is kept by design (see keptBy);
// kept counts those by why they stay. byID are the finalizations of each
// checkpoint.
func (j *Judge) orphans(ctx context.Context, byID map[stores.CheckpointID][]Finalization) (leaks []orphan, kept map[string]int, err error) {
	states, err := scanBucket(ctx, j.Bucket)
	if err != nil {
		return nil, nil, fmt.Errorf("scan the bucket: %w", err)
	}
	kept = map[string]int{}
	for id, s := range states {
		e, err := j.Store(id.JobID).Read(ctx, id)
		if err != nil {
			return nil, nil, err
		}
		if e.Reference != nil {
			continue
		}
		why := j.keptBy(s, byID[id])
		reason := "no finalization known"
		switch {
		case why == KeptRetained && !j.allReported(s):
			// Kept, but an operator must hear of it (I3).
			reason = "retained by its job's retirement, yet never reported by the reconciler"
		case why != "":
			kept[why]++
			continue
		case len(byID[id]) > 0:
			fins := byID[id]
			last := fins[len(fins)-1]
			reason = "finalization " + OutcomeName(last.Result, last.Failure)
		}
		leaks = append(leaks, orphan{state: s, entry: e, reason: reason})
	}
	return leaks, kept, nil
}

// ByCheckpoint maps each checkpoint ID to its finalizations, in order.
func ByCheckpoint(fins []Finalization) map[stores.CheckpointID][]Finalization {
	m := map[stores.CheckpointID][]Finalization{}
	for _, f := range fins {
		id := f.Request.CheckpointID()
		m[id] = append(m[id], f)
	}
	return m
}
