package workflows

import (
	"sort"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// RetentionPlan splits a job's published references (verified present)
// into those to keep and those to remove, oldest first: the newest n count
// (savepoints included), and the newest non-savepoint is always kept, so a
// job can recover from a checkpoint even when savepoints fill the window.
func RetentionPlan(entries []stores.Entry, n int) (keep []uint64, remove []stores.Entry) {
	sorted := append([]stores.Entry(nil), entries...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Checkpoint > sorted[j].Checkpoint })
	newestCheckpoint := -1
	for i, e := range sorted {
		if !e.Reference.Savepoint {
			newestCheckpoint = i
			break
		}
	}
	for i, e := range sorted {
		if i < n || i == newestCheckpoint {
			keep = append(keep, e.Checkpoint)
			continue
		}
		remove = append(remove, e)
	}
	sort.Slice(remove, func(i, j int) bool { return remove[i].Checkpoint < remove[j].Checkpoint })
	return keep, remove
}
