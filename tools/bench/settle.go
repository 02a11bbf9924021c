package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

// settleBound caps how long retentionSettle waits; settlePoll is how
// often it reads the jobs' references meanwhile.
const (
	settleBound = time.Minute
	settlePoll  = 20 * time.Millisecond
)

// Settle is how long retention took to catch up after a burst.
type Settle struct {
	Took time.Duration `json:"took"`
	// Settled: within settleBound.
	Settled bool `json:"settled"`
}

// retentionSettle measures I5 after a burst: the time from end (the last
// finalization of a measured run) until every one of its jobs holds at
// most the references retention keeps and the newest (Retain + 1), read
// from the worker's backend through the direct path's store. It measures
// on ZooKeeper and Kubernetes only (the embedded store's file is the
// worker's alone): nil, nothing measured. Not Settled: a job still held
// more after settleBound.
func (sr *storeRun) retentionSettle(ctx context.Context, jobs []string, end time.Time) (*Settle, error) {
	if sr.kind == worker.StoreEmbedded || sr.cfg.Retain <= 0 {
		return nil, nil
	}
	left := make([]stores.JobID, len(jobs))
	for i, j := range jobs {
		left[i] = stores.JobID{Cluster: sr.cluster, Job: j}
	}
	for {
		var over []stores.JobID
		for _, job := range left {
			refs, err := sr.refs.List(ctx, job)
			if err != nil {
				return nil, fmt.Errorf("retention settle: %w", err)
			}
			if len(refs) > sr.cfg.Retain+1 {
				over = append(over, job)
			}
		}
		left = over
		took := time.Since(end)
		if len(left) == 0 || took > settleBound {
			return &Settle{Took: took, Settled: len(left) == 0}, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(settlePoll):
		}
	}
}
