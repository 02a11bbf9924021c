package lifecycle

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
)

// A discarding RetireJob (workflows/leadership.go, workflows/retired.go)
// runs DiscardRetired once its Retire succeeded, and Temporal retries it
// while it fails retryably (a retired checkpoint's finalization still
// running). The retry is the schedule's choice (discardRetiredStep), so
// that it interleaves with those finalizations' steps, verifies and
// replays, claims of the job and reconcile runs; at rest it is retried
// until done (settleRetirements).

// reachRetiredDiscarded counts the retired checkpoints a discarding
// retirement discarded itself: the quick tier requires it, so that the
// step's properties did not pass vacuously.
const reachRetiredDiscarded = "retired checkpoints discarded by their discarding retirement"

// discardRetiredStep: one attempt of a discarding retirement's
// DiscardRetired, with what may befall it.
type discardRetiredStep struct {
	key   coordKey
	fault fault
}

func (s discardRetiredStep) String() string {
	return fmt.Sprintf("DiscardRetired of %s's retirement on the %s worker%s", s.key.job, s.key.worker, s.fault)
}

func (s discardRetiredStep) run(_ context.Context, w *world) string {
	epoch, ok := w.retiring[s.key]
	if !ok {
		return "no discarding retirement in flight"
	}
	wk := w.workers[s.key.worker]
	res, err := call[activities.RetiredResult](wk, s.fault, asLocal, wk.acts.DiscardRetired, activities.RetiredInput{JobID: s.key.job, Epoch: epoch})
	var app *temporal.ApplicationError
	switch {
	case errors.As(err, &app) && app.Type() == activities.TypeFinalizationsRunning:
		w.seen["discarding retirements waiting for a running finalization"]++
		return "waits, retried: " + clip(app.Message())
	case err != nil && retryable(err):
		return "fails, retried: " + clip(contract.FailureMessage(err))
	}
	delete(w.retiring, s.key)
	if err != nil {
		return "failed, left to the reconciler: " + clip(contract.FailureMessage(err))
	}
	w.seen[reachRetiredDiscarded] += res.Discarded
	w.seen["retired checkpoints left to the reconciler (the job claimed again)"] += len(res.Left)
	return fmt.Sprintf("discarded %d, kept %v, left %v", res.Discarded, res.Kept, res.Left)
}

// settleRetirements retries every discarding retirement still in flight,
// as Temporal does, once the finalizations have settled; one that waits on
// a finalization parked in Verifying stays (the reconciler a day later
// judges its state).
func (w *world) settleRetirements(ctx context.Context) {
	for _, k := range sortedKeys(w.retiring) {
		for try := 0; try < 5; try++ {
			if _, ok := w.retiring[k]; !ok {
				break
			}
			w.settled = append(w.settled, discardRetiredStep{key: k}.run(ctx, w))
		}
	}
}

// discardRetired picks a discarding retirement in flight and runs one
// attempt of it.
func (g *generator) discardRetired() []step {
	k, ok := pick(g, sortedKeys(g.w.retiring))
	if !ok {
		return nil
	}
	return []step{discardRetiredStep{key: k, fault: g.fault()}}
}
