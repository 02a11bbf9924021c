package reconcile

import (
	"errors"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/activities"
	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// pendingVersion: runs recorded before the inventory marked a candidate
// its job's discarding retirement let go within the grace (Pending) ask
// its finalization and try its discard, which keeps it within the grace;
// the version is asked for only when a candidate is pending.
const pendingVersion = "orphan-pending-discard"

// orphan is a candidate whose identity the workflow has worked out.
type orphan struct {
	identity contract.FinalizeRequest
	finding  contract.OrphanFinding
}

// orphans settles the job's orphan candidates: a handle whose key holds
// its token's reference is not one; a candidate the inventory marked to
// keep is reported, and so is one its job's discarding retirement let go
// within the grace, as pending discard; for the rest the finalization, asked by workflow ID,
// decides: running is left alone, abandoned is kept, closed is discarded
// behind a fence (or, in a dry run, reported as such). One Temporal no
// longer knows (its history expired with the namespace's retention) is
// judged by the store alone, as a closed one: the discard's fence covers
// every attempt of its token, so none can land after it whatever became
// of the finalization, and the key read after the fence keeps the state
// whenever anything else stands there.
func (r *reconciliation) orphans(ctx workflow.Context, job stores.JobID, candidates []reconcileacts.OrphanCandidate) {
	var ask []orphan
	for _, c := range candidates {
		id := contract.FinalizeRequest{Cluster: job.Cluster, Job: job.Job, Epoch: c.Epoch, Checkpoint: c.Checkpoint}
		if c.Entry.HoldsToken(id.Token()) {
			continue // its reference stands
		}
		o := orphan{identity: id, finding: contract.OrphanFinding{
			HandleKey: c.Key, Checkpoint: c.CheckpointID.String(), Epoch: c.Epoch,
			WorkflowID: id.WorkflowID(), ModTime: c.ModTime, Savepoint: c.Savepoint,
		}}
		if c.Keep != "" {
			r.keep(o.finding, c.Keep)
			continue
		}
		if c.Pending != "" && workflow.GetVersion(ctx, pendingVersion, workflow.DefaultVersion, 1) != workflow.DefaultVersion {
			o.finding.Action = contract.ActionPendingPrefix + c.Pending
			r.orphan(o.finding)
			continue
		}
		ask = append(ask, o)
	}
	if len(ask) == 0 {
		return
	}
	in := reconcileacts.DescribeInput{JobID: job, Finalizations: make([]reconcileacts.FinalizationIdentity, len(ask))}
	for i, o := range ask {
		in.Finalizations[i] = reconcileacts.FinalizationIdentity{Epoch: o.identity.Epoch, Checkpoint: o.identity.Checkpoint}
	}
	var states []activities.FinalizationState
	if err := workflow.ExecuteActivity(reconcileOptions(ctx), a.DescribeFinalizations, in).Get(ctx, &states); err != nil {
		r.fail("describe finalizations of "+job.String(), err)
		return
	}
	for i, o := range ask {
		st := states[i]
		o.finding.Finalization = finalizationText(st)
		switch {
		case st.Running:
			r.report.Counts.InFlight++
			r.finding("in_flight", 1)
		case st.Phase == string(contract.Abandoned):
			r.keep(o.finding, contract.KeepAbandoned)
		case !r.req.Apply:
			o.finding.Action = contract.ActionWouldDiscard
			r.orphan(o.finding)
		default:
			r.discard(ctx, o)
		}
	}
}

// discard fences the key and discards the state, in one activity that
// deletes nothing unless the fence answered Absent.
func (r *reconciliation) discard(ctx workflow.Context, o orphan) {
	in := reconcileacts.OrphanInput{
		CheckpointID: o.identity.CheckpointID(), Epoch: o.identity.Epoch,
		HandleKey: o.finding.HandleKey, RetiredBefore: r.report.GraceCutoff,
	}
	var res reconcileacts.OrphanResult
	err := workflow.ExecuteActivity(reconcileOptions(ctx), a.DiscardOrphan, in).Get(ctx, &res)
	switch {
	case keepType(err):
		// Savepoint, still referenced, corrupt handle: a definite reason to keep.
		r.keep(o.finding, contract.FailureMessage(err))
	case err != nil:
		r.fail("discard orphan "+o.finding.HandleKey, err)
		o.finding.Action = "not discarded: " + contract.FailureMessage(err)
		r.orphan(o.finding)
	case res.Referenced:
		// The fence found the token's reference: not an orphan after all.
		workflow.GetLogger(ctx).Info("orphan candidate is referenced", "handle", o.finding.HandleKey)
	case res.Kept != "":
		r.keep(o.finding, res.Kept)
	default:
		o.finding.Action = contract.ActionDiscarded
		r.report.Counts.Discarded++
		r.action("discarded", 1)
		r.list(capped(&r.report.Discarded, o.finding.HandleKey, r.limit))
		r.orphan(o.finding)
	}
}

func (r *reconciliation) keep(f contract.OrphanFinding, reason string) {
	f.Action = contract.ActionKeptPrefix + reason
	r.report.Counts.Kept++
	r.finding("orphan_kept", 1)
	r.orphan(f)
}

func (r *reconciliation) orphan(f contract.OrphanFinding) {
	r.report.Counts.Orphans++
	r.finding("orphan", 1)
	r.list(capped(&r.report.Orphans, f, r.limit))
}

func finalizationText(st activities.FinalizationState) string {
	switch {
	case !st.Found:
		return "not found"
	case st.Phase != "":
		return st.Status + "/" + st.Phase
	}
	return st.Status
}

// keepType reports whether a DiscardOrphan failure is a reason to keep the
// state rather than an error.
func keepType(err error) bool {
	var app *temporal.ApplicationError
	if !errors.As(err, &app) {
		return false
	}
	switch app.Type() {
	case contract.TypeSavepoint, contract.TypeCorruptHandle, contract.TypeOutsideLayout:
		return true
	}
	return false
}
