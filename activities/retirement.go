package activities

import (
	"fmt"
	"time"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Why state a job's retirement removed stays: the reconciler's orphan
// discard and a discarding retirement's own discard (DiscardRetired) judge
// it by the same rules, here.
const (
	// KeepRetained: the job's retirement retained the checkpoint for the
	// operator (a resubmitted job may restore from it).
	KeepRetained = "retained by the job's retirement"
	// KeepPreviousIncarnation: the state of a job ID's forgotten
	// incarnation; its checkpoint directories are the new incarnation's too.
	KeepPreviousIncarnation = "previous incarnation of a reused job ID"
	// keepRetiring is formatted with the retirement's time.
	keepRetiring = "retired at %s, within the grace"
)

// Retirement returns the tombstone the job's retirement (or an operator's
// release) left in place of token's reference, retired or retained; nil
// when the key holds none.
func Retirement(e stores.Entry, token string) *stores.Tombstone {
	t := e.Tombstone
	if t != nil && t.Token == token && (t.Reason == stores.ReasonRetired || t.Reason == stores.ReasonRetained) {
		return t
	}
	return nil
}

// RetirementKeeps says why a checkpoint its job's retirement removed keeps
// its state: retained for the operator, or retired at or after
// retiredBefore (the reconciler's grace; zero: no grace). "" when the
// retirement let it go, or the key holds no retirement of token.
func RetirementKeeps(e stores.Entry, token string, retiredBefore time.Time) string {
	switch t := Retirement(e, token); {
	case t == nil:
		return ""
	case t.Reason == stores.ReasonRetained:
		return KeepRetained
	case !retiredBefore.IsZero() && !t.Since.Before(retiredBefore):
		return fmt.Sprintf(keepRetiring, t.Since.UTC().Format(time.RFC3339))
	}
	return ""
}
