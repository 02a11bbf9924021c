package reconcile

import (
	"cmp"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// historyLimit: past this many events a run hands the remaining jobs to a
// continuation, so that a large cluster never hits Temporal's history cap.
const historyLimit = 8000

// a names activities by method; its fields are never used in a workflow.
var a *reconcileacts.Activities

// Workflow compares a cluster's HA store with its state bucket, job by
// job: it reports dangling references (quarantining them only when asked,
// after confirming once more), discards orphaned state whose finalization
// is closed or no longer known to Temporal (fencing the key first; never
// savepoints, abandoned state or shared files) and collects old tombstones. Without req.Apply it changes
// nothing and reports what it would do. Its status query and result are a
// ReconcileReport.
func Workflow(ctx workflow.Context, req contract.ReconcileRequest) (contract.ReconcileReport, error) {
	r := newReconciliation(ctx, req)
	if err := workflow.SetQueryHandler(ctx, contract.StatusQuery, func() (contract.ReconcileReport, error) { return r.report, nil }); err != nil {
		return r.report, err
	}
	if err := cmp.Or(req.Validate(), acceptCarry(ctx, req)); err != nil {
		return r.report, temporal.NewNonRetryableApplicationError(err.Error(), contract.TypeInvalid, err)
	}
	var jobs []stores.JobID
	if req.Carry != nil {
		r.report, jobs = req.Carry.Report, req.Carry.Jobs
	} else {
		r.report.Phase = contract.ReconcileListing
		in := reconcileacts.ListJobsInput{Cluster: req.Cluster}
		if err := workflow.ExecuteActivity(reconcileOptions(ctx), a.ListClusterJobs, in).Get(ctx, &jobs); err != nil {
			r.fail("list jobs", err)
			return r.report, fmt.Errorf("reconcile %s: list jobs: %w", req.Cluster, err)
		}
	}
	r.report.Phase = contract.ReconcileReconciling
	for i, job := range jobs {
		if workflow.GetInfo(ctx).GetCurrentHistoryLength() >= historyLimit {
			next := req
			next.Carry = &contract.ReconcileCarry{Report: r.report, Jobs: jobs[i:]}
			return r.report, workflow.NewContinueAsNewError(ctx, contract.ReconcileWorkflow, next)
		}
		r.job(ctx, job)
	}
	r.report.Phase, r.report.Job = contract.ReconcileDone, ""
	workflow.GetLogger(ctx).Info("reconciled", "cluster", req.Cluster, "dryRun", r.report.DryRun, "counts", r.report.Counts)
	return r.report, nil
}

// reconciliation is the state of one Reconcile run.
type reconciliation struct {
	ctx    workflow.Context
	req    contract.ReconcileRequest
	report contract.ReconcileReport
	limit  int
}

// acceptCarry refuses a carry the run did not get from the run it
// continues: from any other starter it is untrusted input, whose job list
// would skip the listing (and its served-cluster check) and whose report
// would set the cutoffs. Even a continuation's cutoffs only bound the
// activities', which apply the worker's floors (reconcileacts.Floors).
func acceptCarry(ctx workflow.Context, req contract.ReconcileRequest) error {
	if req.Carry == nil {
		return nil
	}
	if workflow.GetInfo(ctx).ContinuedExecutionRunID == "" {
		return &stores.InvalidError{Field: "carry", Rule: "only a run continuing as new sets it; a started run lists its cluster's jobs itself"}
	}
	if c := req.Carry.Report.Cluster; c != req.Cluster {
		return &stores.InvalidError{Field: "carry.report.cluster", Rule: fmt.Sprintf("%q is not the run's cluster %q", c, req.Cluster)}
	}
	for _, j := range req.Carry.Jobs {
		if j.Cluster != req.Cluster {
			return &stores.InvalidError{Field: "carry.jobs", Rule: fmt.Sprintf("%q is not a job of the run's cluster %q", j.String(), req.Cluster)}
		}
	}
	return nil
}

// newReconciliation starts a run's report afresh; a continuation's is
// the carried one, taken only once acceptCarry has accepted it.
func newReconciliation(ctx workflow.Context, req contract.ReconcileRequest) *reconciliation {
	r := &reconciliation{ctx: ctx, req: req, limit: req.ListLimit()}
	now := workflow.Now(ctx).UTC()
	r.report = contract.ReconcileReport{
		Cluster: req.Cluster, DryRun: !req.Apply, QuarantineDangling: req.QuarantineDangling,
		Now: now, GraceCutoff: now.Add(-time.Duration(req.Grace)), TombstoneCutoff: now.Add(-time.Duration(req.TombstoneTTL)),
		Dangling: []contract.DanglingFinding{}, Orphans: []contract.OrphanFinding{}, Discarded: []string{}, Quarantined: []string{},
		TombstonesCollected: []contract.TombstoneFinding{}, Errors: []string{},
	}
	return r
}

// job reconciles one job: dangling references, then orphans, then
// tombstones (last, so that fences written by this run are not collected
// by it).
func (r *reconciliation) job(ctx workflow.Context, job stores.JobID) {
	r.report.Job = job.String()
	in := reconcileacts.InventoryInput{JobID: job, GraceCutoff: r.report.GraceCutoff, TombstoneCutoff: r.report.TombstoneCutoff}
	var inv reconcileacts.JobInventory
	if err := workflow.ExecuteActivity(reconcileOptions(ctx), a.InventoryJob, in).Get(ctx, &inv); err != nil {
		r.fail("inventory of "+job.String(), err)
		return
	}
	c := &r.report.Counts
	c.Jobs++
	c.References += inv.Published
	c.InFlight += inv.Young
	c.Foreign += len(inv.Foreign)
	r.finding("in_flight", inv.Young)
	r.finding("foreign", len(inv.Foreign))
	r.report.Truncated = r.report.Truncated || inv.Truncated
	for _, d := range inv.Dangling {
		r.dangling(ctx, job, d)
	}
	r.orphans(ctx, job, inv.Orphans)
	r.tombstones(ctx, job, inv.Collectable, inv.Forget)
}

// fail records an item the run could not settle; the run goes on.
func (r *reconciliation) fail(what string, err error) {
	r.report.Counts.Errors++
	r.finding("error", 1)
	r.list(capped(&r.report.Errors, what+": "+contract.FailureMessage(err), r.limit))
	workflow.GetLogger(r.ctx).Warn("reconcile item failed", "item", what, "error", err)
}

func (r *reconciliation) list(fitted bool) {
	r.report.Truncated = r.report.Truncated || !fitted
}
