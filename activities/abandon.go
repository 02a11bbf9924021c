package activities

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// AbandonInput names the state of a finalization an operator abandoned,
// and the operator's reason.
type AbandonInput struct {
	HandleKey HandleKey `json:"handleKey"`
	Reason    string    `json:"reason"`
}

// Clusters is the cluster of the handle (the tenant gate).
func (in AbandonInput) Clusters() []string { return in.HandleKey.Clusters() }

// KeepAbandoned records in the bucket, beside the handle, that an operator
// abandoned its finalization and keeps its state (blobstate.KeepMark). The
// closed execution's result says so only for as long as the namespace
// retains its history, and anyone in the namespace can start another run
// under its ID: the mark is the record every delete consults (Guard), and
// only an operator's release removes it. Idempotent; the first reason
// stays.
func (a *Activities) KeepAbandoned(ctx context.Context, in AbandonInput) error {
	err := a.States.Keep(ctx, string(in.HandleKey), in.Reason, time.Now())
	if errors.Is(err, stores.ErrInvalid) {
		return temporal.NewNonRetryableApplicationError(err.Error(), contract.TypeInvalid, err)
	}
	return err
}
