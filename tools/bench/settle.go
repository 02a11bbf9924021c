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
	settled, err := pollUntil(ctx, end.Add(settleBound), settlePoll, func() (bool, error) {
		var over []stores.JobID
		for _, job := range left {
			refs, err := sr.refs.List(ctx, job)
			if err != nil {
				return false, fmt.Errorf("retention settle: %w", err)
			}
			if len(refs) > sr.cfg.Retain+1 {
				over = append(over, job)
			}
		}
		left = over
		return len(left) == 0, nil
	})
	if err != nil {
		return nil, err
	}
	return &Settle{Took: time.Since(end), Settled: settled}, nil
}

// pollUntil calls done every poll until it reports true or deadline has
// passed, and says which; done's error ends it.
func pollUntil(ctx context.Context, deadline time.Time, poll time.Duration, done func() (bool, error)) (bool, error) {
	for {
		ok, err := done()
		if err != nil || ok || time.Now().After(deadline) {
			return ok, err
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(poll):
		}
	}
}
