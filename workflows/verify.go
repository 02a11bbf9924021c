package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// verifyPause separates two verify activities when one gave up (its
// schedule-to-close ran out): the workflow keeps verifying regardless.
const verifyPause = 5 * time.Minute

// verify runs Verify for the current attempt until it answers Present or a
// fenced Absent, without limit. It returns a non-empty reason when an
// operator abandoned the finalization instead. A retry-now signal cancels the
// running verify (and its backoff) and starts a new one at once.
func (f *finalization) verify(ctx workflow.Context) (stores.Verdict, string) {
	f.setPhase(contract.Verifying)
	in := activities.VerifyInput{CheckpointID: f.req.CheckpointID(), Token: f.req.Token(), Attempt: f.status.Attempts, Epoch: f.req.Epoch, Owner: f.req.Owner}
	for {
		actx, cancel := workflow.WithCancel(verifyOptions(ctx))
		future := workflow.ExecuteActivity(actx, a.Verify, in)
		f.status.Verifications++
		f.showDetails()

		var (
			verdict stores.Verdict
			err     error
			done    bool
		)
		sel := f.operatorSelector(ctx)
		sel.AddFuture(future, func(fu workflow.Future) { err, done = fu.Get(ctx, &verdict), true })
		sel.Select(ctx)
		cancel()

		switch {
		case done && err == nil:
			return verdict, ""
		case !done:
			// An operator interrupted: stop this verify before anything else,
			// so that two verifies of one key never overlap.
			_ = future.Get(ctx, nil) // its outcome no longer matters: a new decision follows
		case isInvalid(err):
			// Waiting cannot fix invalid input, and nothing may be
			// discarded: park until an operator acts.
			f.status.LastError = contract.FailureMessage(err)
			f.showDetails()
			f.operatorSelector(ctx).Select(ctx)
		default:
			f.status.LastError = contract.FailureMessage(err)
			f.showDetails()
			sel := f.operatorSelector(ctx)
			sel.AddFuture(workflow.NewTimer(ctx, verifyPause), func(workflow.Future) {})
			sel.Select(ctx)
		}
		if f.abandoned != "" {
			return stores.VerdictUnknown, f.abandoned
		}
	}
}

func isInvalid(err error) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && app.Type() == contract.TypeInvalid
}
