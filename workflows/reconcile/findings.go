package reconcile

import (
	"errors"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Metrics of the reconciler, through the SDK's metrics handler (replay-safe),
// labelled with the run's cluster: the alerts on them are per cluster.
const (
	// MetricFindings counts findings by kind: dangling, orphan,
	// orphan_kept, in_flight, tombstone, foreign, error.
	MetricFindings = "finalizer_reconcile_findings"
	// MetricActions counts what applied runs changed by action:
	// quarantined, discarded, tombstones_collected.
	MetricActions = "finalizer_reconcile_actions"
)

func (r *reconciliation) finding(kind string, n int) {
	if n > 0 {
		workflow.GetMetricsHandler(r.ctx).WithTags(map[string]string{"kind": kind, "cluster": r.req.Cluster}).Counter(MetricFindings).Inc(int64(n))
	}
}

func (r *reconciliation) action(action string, n int) {
	if n > 0 {
		workflow.GetMetricsHandler(r.ctx).WithTags(map[string]string{"action": action, "cluster": r.req.Cluster}).Counter(MetricActions).Inc(int64(n))
	}
}

// dangling reports a reference that does not resolve and, when asked to
// and applying, quarantines it; the activity confirms the problem again
// right before.
func (r *reconciliation) dangling(ctx workflow.Context, job stores.JobID, d reconcileacts.DanglingReference) {
	id := stores.CheckpointID{JobID: job, Checkpoint: d.Checkpoint}
	f := contract.DanglingFinding{Checkpoint: id.String(), HandleKey: d.HandleKey, Token: d.Token, Savepoint: d.Savepoint, Problem: d.Problem}
	r.report.Counts.Dangling++
	r.finding("dangling", 1)
	switch {
	case !r.req.QuarantineDangling:
		f.Action = contract.ActionReported
	case !r.req.Apply:
		f.Action = contract.ActionWouldQuarantine
	default:
		f.Action = r.quarantine(ctx, id, d)
	}
	r.list(capped(&r.report.Dangling, f, r.limit))
}

func (r *reconciliation) quarantine(ctx workflow.Context, id stores.CheckpointID, d reconcileacts.DanglingReference) string {
	in := reconcileacts.QuarantineInput{CheckpointID: id, Token: d.Token, HandleKey: d.HandleKey}
	var res reconcileacts.QuarantineResult
	err := workflow.ExecuteActivity(reconcileOptions(ctx), a.QuarantineDangling, in).Get(ctx, &res)
	switch {
	case isConflict(err):
		// The key changed since the inventory (subsumed, or another token):
		// nothing to quarantine any more.
		return "not quarantined: " + contract.FailureMessage(err)
	case err != nil:
		r.fail("quarantine "+id.String(), err)
		return "not quarantined: " + contract.FailureMessage(err)
	case res.Resolves:
		return contract.ActionResolves
	}
	r.report.Counts.Quarantined++
	r.action("quarantined", 1)
	r.list(capped(&r.report.Quarantined, id.String(), r.limit))
	return contract.ActionQuarantined
}

// tombstones collects the job's tombstones past the TTL at or below the
// watermark; a dry run reports them.
func (r *reconciliation) tombstones(ctx workflow.Context, job stores.JobID, collectable []uint64, forget bool) {
	if len(collectable) == 0 && !forget {
		return
	}
	r.report.Counts.Tombstones += len(collectable)
	r.finding("tombstone", len(collectable))
	f := contract.TombstoneFinding{Job: job.String(), Checkpoints: collectable, Action: contract.ActionWouldCollect}
	if len(f.Checkpoints) > r.limit {
		f.Checkpoints = f.Checkpoints[:r.limit]
		r.list(false)
	}
	if r.req.Apply {
		in := reconcileacts.CollectInput{JobID: job, OlderThan: r.report.TombstoneCutoff}
		if err := workflow.ExecuteActivity(reconcileOptions(ctx), a.CollectTombstones, in).Get(ctx, &f.Collected); err != nil {
			r.fail("collect tombstones of "+job.String(), err)
			return
		}
		f.Action = contract.ActionCollected
		r.report.Counts.TombstonesCollected += f.Collected
		r.action("tombstones_collected", f.Collected)
	}
	r.list(capped(&r.report.TombstonesCollected, f, r.limit))
}

func isConflict(err error) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && app.Type() == contract.TypeConflict
}
