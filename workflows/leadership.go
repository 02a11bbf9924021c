package workflows

import (
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// ClaimEpoch claims a job's epoch and answers its restore point, read
// after the claim fenced every older epoch. It fails with the rejection's
// type (e.g. Rejected.StaleEpoch) when a newer or another claim stands.
func ClaimEpoch(ctx workflow.Context, req contract.ClaimRequest) (contract.RestorePoint, error) {
	in := activities.ClaimInput{JobID: stores.JobID{Cluster: req.Cluster, Job: req.Job}, Epoch: req.Epoch, Owner: req.Owner}
	if err := storeCall.execute(ctx, false, a.ClaimEpoch, in).Get(ctx, nil); err != nil {
		return contract.RestorePoint{}, err
	}
	return restorePoint(ctx, req)
}

// RetireJob retires a job whose checkpoint ID space is about to restart.
// Only the standing claim, epoch and owner, retires it. A discarding
// retirement then discards the state it let go once the checkpoints'
// finalizations have closed (discardRetired), and completes only then, as
// Flink's cleanup of a job deletes its checkpoints before it completes.
// An operator's retry-now and abandon reach both steps
// (retireSignalsChange).
func RetireJob(ctx workflow.Context, req contract.RetireRequest) error {
	if err := validated(ctx, req.Validate()); err != nil {
		return temporal.NewNonRetryableApplicationError("retire job: "+err.Error(), contract.TypeInvalid, err)
	}
	var op *operator
	if workflow.GetVersion(ctx, retireSignalsChange, workflow.DefaultVersion, 1) == 1 {
		o := newOperator(ctx)
		op = &o
	}
	in := activities.RetireInput{JobID: stores.JobID{Cluster: req.Cluster, Job: req.Job}, Epoch: req.Epoch, Owner: req.Owner, DiscardCheckpoints: req.DiscardCheckpoints}
	err := op.run(ctx, storeCall, a.Retire, in, nil)
	switch {
	case op.gaveUp() && err != nil:
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf(
			"retirement of %s/%s abandoned by an operator before the store answered (it may have retired the job; nothing was discarded): %s",
			req.Cluster, req.Job, op.abandoned), contract.TypeAbandoned, nil)
	case err != nil || !req.DiscardCheckpoints:
		return err
	case op.gaveUp():
		workflow.GetLogger(ctx).Warn("retirement abandoned once the store retired the job: nothing discarded", "reason", op.abandoned)
		return nil
	}
	return discardRetired(ctx, req, op)
}

// The "retire-operator-signals" change: a retirement reads retry-now and
// abandon while its store does not answer and while its discard waits or
// fails. Retirements recorded before it read no signal.
const retireSignalsChange = "retire-operator-signals"

// run runs activity as c's regular activity, which o's signals interrupt
// (interruptible); a nil o (an execution recorded before the change)
// runs it as before.
func (o *operator) run(ctx workflow.Context, c call, activity, in, out any) error {
	if o == nil {
		return c.execute(ctx, false, activity, in).Get(ctx, out)
	}
	return o.interruptible(ctx, c, activity, in, out)
}

// gaveUp reports whether an operator abandoned the execution.
func (o *operator) gaveUp() bool { return o != nil && o.abandoned != "" }
