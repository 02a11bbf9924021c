package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// discardRetiredVersion: retirements recorded before RetireJob discarded
// a discarding retirement's state itself replay without that step; their
// state stays the reconciler's, as it was when they ran. The version is
// asked for only when the request discards, so a retaining retirement's
// history gains no marker.
const discardRetiredVersion = "discard-retired"

// discardRetired discards the state the retirement let go once each
// checkpoint's finalization has closed (activities.DiscardRetired, which
// fails retryably while one still runs: the unlimited backoff is the
// wait, visible as the activity's last failure in the Web UI). A failure
// that is not retried does not undo the retirement, which stands: it is
// logged, and the reconciler is the backstop for what is left, as it is
// for whatever the store does not prove garbage.
//
// Abandoned (op), it stops: the job stays retired and what is left of its
// state stays where it is, to the reconciler as after a failure.
func discardRetired(ctx workflow.Context, req contract.RetireRequest, op *operator) error {
	if workflow.GetVersion(ctx, discardRetiredVersion, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return nil
	}
	in := activities.RetiredInput{JobID: stores.JobID{Cluster: req.Cluster, Job: req.Job}, Epoch: req.Epoch}
	var res activities.RetiredResult
	err := op.run(ctx, discardCall, a.DiscardRetired, in, &res)
	if op.gaveUp() && err != nil {
		workflow.GetLogger(ctx).Warn("retired checkpoints' discard abandoned by an operator: what is left stays; the reconciler is the backstop", "job", in.JobID, "reason", op.abandoned)
		return nil
	}
	if err != nil {
		workflow.GetLogger(ctx).Warn("retired checkpoints not discarded; the reconciler discards them", "job", in.JobID, "error", err)
		return nil
	}
	workflow.GetLogger(ctx).Info("retired checkpoints discarded", "job", in.JobID, "discarded", res.Discarded, "kept", res.Kept, "left", res.Left)
	return nil
}
