package reconcile

import (
	"context"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// DanglingReference is a published reference that does not resolve.
type DanglingReference struct {
	Checkpoint uint64 `json:"checkpoint"`
	Token      string `json:"token"`
	HandleKey  string `json:"handleKey"`
	Savepoint  bool   `json:"savepoint,omitempty"`
	// Problem is one of contract's Problem constants (activities.Resolve).
	Problem string `json:"problem"`
}

// QuarantineInput names a dangling reference.
type QuarantineInput struct {
	stores.CheckpointID
	Token     string `json:"token"`
	HandleKey string `json:"handleKey"`
}

// QuarantineResult says what QuarantineDangling did.
type QuarantineResult struct {
	// Quarantined: the reference is now a tombstone (ReasonQuarantined).
	Quarantined bool `json:"quarantined,omitempty"`
	// Resolves: right before the quarantine the handle and its data were
	// found after all; nothing was written.
	Resolves bool `json:"resolves,omitempty"`
	// Problem is the problem confirmed right before the quarantine.
	Problem string `json:"problem,omitempty"`
}

// QuarantineDangling reads the handle and its metadata again and, only if
// the reference still does not resolve, tombstones it with one
// compare-and-set on the token (a key that changed meanwhile is Rejected).
// A retry after an Unknown finds its own quarantine: Published.
func (a *Activities) QuarantineDangling(ctx context.Context, in QuarantineInput) (QuarantineResult, error) {
	defer activities.KeepAlive(ctx)()
	if err := a.wired(); err != nil {
		return QuarantineResult{}, err
	}
	problem, _, err := activities.Resolve(ctx, a.States, a.Layout, in.HandleKey)
	if err != nil {
		return QuarantineResult{}, err
	}
	if problem == "" {
		return QuarantineResult{Resolves: true}, nil
	}
	err = a.Inventory.Quarantine(ctx, in.CheckpointID, in.Token)
	activities.CountStoreCall(ctx, "quarantine", stores.OutcomeOf(err))
	if err != nil {
		return QuarantineResult{}, activities.Translate(err)
	}
	return QuarantineResult{Quarantined: true, Problem: problem}, nil
}
