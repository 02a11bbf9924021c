package lifecycle

import (
	"errors"

	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// The finalization's decisions, as FinalizeCheckpoint (workflows/finalize.go)
// makes them in workflow code. Each mirrors one branch there; the step it
// leads to runs the real activity.

// publishTries is publishCall's MaximumAttempts (workflows/options.go):
// Temporal retries one publish attempt this often before the workflow sees
// its failure.
const publishTries = 3

// outcomeOf reads an activity's error as workflows/finalize.go's outcomeOf
// does: only a Rejected type is definite; everything else, timeouts
// included, is Unknown.
func outcomeOf(err error) stores.Outcome {
	switch {
	case err == nil:
		return stores.Published
	case contract.Rejection(err) != nil:
		return stores.Rejected
	}
	return stores.Unknown
}

// afterPublish is the publish loop's decision on an attempt's outcome
// (workflows/finalize.go): Published ends; a Rejected with no Unknown
// before it discards; a Rejected after an Unknown, or an Unknown,
// verifies (the Unknown leaves the attempt unfenced).
func afterPublish(o stores.Outcome, unfenced bool) (next phase, stillUnfenced bool) {
	switch {
	case o == stores.Published:
		return phaseEnded, unfenced
	case o == stores.Rejected && !unfenced:
		return phaseDiscard, unfenced
	case o == stores.Rejected:
		return phaseVerify, unfenced
	}
	return phaseVerify, true
}

// afterVerify is the decision on a verify's verdict (workflows/finalize.go):
// Present ends Published; a fenced Absent republishes with the next attempt
// until the request's MaxAttempts, then discards.
func afterVerify(v stores.Verdict, attempts, max uint32) phase {
	switch {
	case v == stores.Present:
		return phaseEnded
	case attempts >= max:
		return phaseDiscard
	}
	return phasePublish
}

// isInvalid is workflows/verify.go's test for a verify that waiting cannot
// fix: the finalization parks until an operator acts.
func isInvalid(err error) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && app.Type() == contract.TypeInvalid
}

// isDataMissing is workflows/finalize.go's test for a persist that found
// the checkpoint's data gone.
func isDataMissing(err error) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && app.Type() == contract.TypeDataMissing
}
