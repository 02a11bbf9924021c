package faultharness

import (
	"context"
	"sync"
	"time"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// Paths counts the protocol's hard paths the faults drove finalizations
// down: the evidence that the faults hit what they aim at.
type Paths struct {
	// Verified went to Verifying at least once (an Unknown publish).
	Verified int `json:"verified"`
	// Fenced were answered a fenced Absent at least once.
	Fenced int `json:"fenced"`
	// Republished were Published by a second or later attempt.
	Republished int `json:"republished"`
	// Unqueried finalizations whose status query got no answer.
	Unqueried int `json:"unqueried"`
}

// paths asks every ended finalization's status query (real mode only: the
// naive workflow has no such path to take).
func (r *run) paths(ctx context.Context) {
	if r.cfg.Naive {
		return
	}
	fins := r.finalizations()
	work := make(chan *finalization)
	var (
		wg sync.WaitGroup
		mu sync.Mutex
	)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range work {
				st, ok := r.status(ctx, f)
				mu.Lock()
				switch {
				case !ok:
					r.rep.Paths.Unqueried++
				default:
					if st.Verifications > 0 {
						r.rep.Paths.Verified++
					}
					if st.Fences > 0 {
						r.rep.Paths.Fenced++
					}
					if st.Phase == contract.Published && st.Attempts > 1 {
						r.rep.Paths.Republished++
					}
				}
				mu.Unlock()
			}
		}()
	}
	for _, f := range fins {
		work <- f
	}
	close(work)
	wg.Wait()
}

func (r *run) status(ctx context.Context, f *finalization) (contract.Status, bool) {
	var st contract.Status
	for range 3 {
		qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		var err error
		st, err = r.laneOf(f.req.CheckpointID().JobID).Client.Status(qctx, f.req.Cluster, f.req.Job, f.req.Epoch, f.req.Checkpoint)
		cancel()
		if err == nil {
			return st, true
		}
	}
	return st, false
}
