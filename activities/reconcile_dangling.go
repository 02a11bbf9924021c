package activities

import (
	"context"
	"errors"
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// DanglingReference is a published reference that does not resolve.
type DanglingReference struct {
	Checkpoint uint64 `json:"checkpoint"`
	Token      string `json:"token"`
	HandleKey  string `json:"handleKey"`
	Savepoint  bool   `json:"savepoint,omitempty"`
	// Problem is one of the Problem constants.
	Problem string `json:"problem"`
}

// resolve follows a reference to its handle and the handle to its
// metadata. It returns the problem ("" when everything resolves), the
// handle when one could be read, or an I/O error that says nothing.
func (a *Activities) resolve(ctx context.Context, key string) (string, *blobstate.Handle, error) {
	h, err := a.States.ReadKey(ctx, key)
	switch {
	case errors.Is(err, blobstate.ErrNotFound):
		return contract.ProblemHandleMissing, nil, nil
	case errors.Is(err, blobstate.ErrCorrupt):
		return contract.ProblemHandleCorrupt, nil, nil
	case errors.Is(err, stores.ErrInvalid):
		return contract.ProblemHandleKeyInvalid, nil, nil
	case err != nil:
		return "", nil, fmt.Errorf("read handle %s: %w", key, err)
	}
	err = a.States.CheckData(ctx, h)
	switch {
	case errors.Is(err, blobstate.ErrDataMissing):
		return contract.ProblemDataMissing, &h, nil
	case errors.Is(err, blobstate.ErrDataCorrupt):
		return contract.ProblemDataCorrupt, &h, nil
	case err != nil:
		return "", &h, fmt.Errorf("check data of %s: %w", key, err)
	}
	return "", &h, nil
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
	defer keepAlive(ctx)()
	problem, _, err := a.resolve(ctx, in.HandleKey)
	if err != nil {
		return QuarantineResult{}, err
	}
	if problem == "" {
		return QuarantineResult{Resolves: true}, nil
	}
	err = a.Inventory.Quarantine(ctx, in.CheckpointID, in.Token)
	count(ctx, "quarantine", stores.OutcomeOf(err))
	if err != nil {
		return QuarantineResult{}, translate(err)
	}
	return QuarantineResult{Quarantined: true, Problem: problem}, nil
}
