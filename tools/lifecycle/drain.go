package lifecycle

import (
	"context"
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// handed is a worker's background retention queue (worker/retention.go):
// the jobs its publishes handed over. When a pass of one runs is the
// schedule's choice (drainStep), so a pass may run long after the publish,
// beside a coordinator's, on another worker, or be cut off by a crash.
type handed map[stores.JobID]bool

func (h handed) Enqueue(job stores.JobID) { h[job] = true }

// drainStep: a worker's background retention passes over a job
// (activities.DrainRetention), with what may befall it: a crash after its
// first store and bucket calls, whose work the job's next pass must find
// in the store.
type drainStep struct {
	on    string
	job   stores.JobID
	fault fault
}

func (s drainStep) String() string {
	return fmt.Sprintf("background retention of %s on the %s worker%s", s.job, s.on, s.fault)
}

func (s drainStep) run(_ context.Context, w *world) string {
	wk := w.workers[s.on]
	delete(wk.handed, s.job)
	res, err := call[activities.RemovalResult](wk, s.fault, asLocal, wk.acts.DrainRetention, s.job)
	if err != nil {
		return "pass cut off: " + clip(contract.FailureMessage(err))
	}
	w.seen["checkpoints removed by background retention"] += res.Removed
	w.seen["tombstones background retention left (finalization running)"] += len(res.Uncollected)
	return fmt.Sprintf("removed %d, deposed %t, kept %v, uncollected %d", res.Removed, res.Deposed, res.Kept, len(res.Uncollected))
}
