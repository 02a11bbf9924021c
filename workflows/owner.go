package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// Requests name their claimant, epoch and owner (version 1 of the
// "claim-owner" change): a request naming the standing epoch under another
// owner takes no checkpoint, retires nothing and removes nothing.
// Executions recorded before the change replay on version 0, where a
// request without an owner is decided on its epoch alone. The version is
// asked for only when a request names no owner, so a valid request's
// history gains no marker.
const (
	ownerChange  = "claim-owner"
	ownerVersion = 1
)

// validated is a request's Validate error as this execution's version
// decides it: a missing owner is refused unless the execution was recorded
// before requests named one.
func validated(ctx workflow.Context, err error) error {
	if contract.MissingOwner(err) && workflow.GetVersion(ctx, ownerChange, workflow.DefaultVersion, ownerVersion) == workflow.DefaultVersion {
		return nil
	}
	return err
}
