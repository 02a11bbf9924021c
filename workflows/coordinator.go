package workflows

import (
	"errors"
	"fmt"
	"math"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// coordinatorReport is how a finalization reaches its coordinator: signal,
// starting it on first use.
func coordinatorReport(r contract.PublishedReport) activities.ReportInput {
	return activities.ReportInput{
		WorkflowID:   contract.CoordinatorID(r.Cluster, r.Job),
		WorkflowType: contract.CoordinatorWorkflow,
		Signal:       contract.PublishedSignal,
		SignalArg:    r,
		StartArg:     contract.CoordinatorState{Cluster: r.Cluster, Job: r.Job, Epoch: r.Epoch},
	}
}

// passesBeforeContinue bounds the history of one coordinator run.
const passesBeforeContinue = 200

// recheckDelay: on the fast path a finalization reports while it publishes,
// so a pass can run before the reference lands; the coordinator then looks
// again this much later, once, unless another report comes first.
const recheckDelay = 2 * time.Second

// JobCoordinator is the single subsumption owner of a job.
//
// On the fast path (decided once per run) it reads the store in a local
// activity, removes a pass's references in one regular activity (durable
// once decided: a plan read again after a crash would no longer list a
// reference subsumed before it, and its state would leak), and passes
// again after recheckDelay when a pass did not see the newest checkpoint
// reported.
func JobCoordinator(ctx workflow.Context, st contract.CoordinatorState) error {
	local := pathVersion(ctx) >= fastPathVersion
	status := contract.CoordinatorStatus{CoordinatorState: st}
	if err := workflow.SetQueryHandler(ctx, contract.StatusQuery, func() (contract.CoordinatorStatus, error) { return status, nil }); err != nil {
		return err
	}
	reports := workflow.GetSignalChannel(ctx, contract.PublishedSignal)
	var newest uint64   // the newest checkpoint reported since the last pass
	var reported uint64 // the newest epoch reported since the last pass
	absorb := func(r contract.PublishedReport) {
		if r.Epoch > status.Epoch {
			status.Deposed = false
		}
		newest, reported = max(newest, r.Checkpoint), max(reported, r.Epoch)
	}
	recheck := false
	for passes := 0; ; passes++ {
		var r contract.PublishedReport
		if recheck {
			awaitReportOr(ctx, reports, recheckDelay, absorb)
		} else {
			reports.Receive(ctx, &r)
			absorb(r)
		}
		for reports.ReceiveAsync(&r) { // batch what arrived meanwhile into one pass
			absorb(r)
		}
		recheck = false
		if !status.Deposed {
			seen, err := retain(ctx, local, &status)
			if err != nil {
				status.LastError = err.Error()
			}
			recheck = local && err == nil && newest > seen
			if err == nil && reported > status.Epoch {
				// A request of an epoch never claimed (or claimed after
				// the pass read the store): it removes nothing.
				workflow.GetLogger(ctx).Warn("report of an epoch the store does not hold dropped",
					"reported", reported, "claimed", status.Epoch)
			}
		}
		newest, reported = 0, 0
		status.Passes++
		if passes >= passesBeforeContinue || workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			// Reports that arrive before the new run starts stay in the
			// signal channel only for this run: take them first.
			pending := false
			for reports.ReceiveAsync(&r) {
				absorb(r)
				pending = true
			}
			if !pending {
				return workflow.NewContinueAsNewError(ctx, JobCoordinator, status.CoordinatorState)
			}
		}
	}
}

// awaitReportOr waits for the next report, or for delay to pass.
func awaitReportOr(ctx workflow.Context, reports workflow.ReceiveChannel, delay time.Duration, absorb func(contract.PublishedReport)) {
	tctx, cancel := workflow.WithCancel(ctx)
	defer cancel()
	sel := workflow.NewSelector(ctx)
	sel.AddReceive(reports, func(c workflow.ReceiveChannel, _ bool) {
		var r contract.PublishedReport
		c.Receive(ctx, &r)
		absorb(r)
	})
	sel.AddFuture(workflow.NewTimer(tctx, delay), func(workflow.Future) {})
	sel.Select(ctx)
}

// retain lists the references the store holds and removes those retention
// does not keep, oldest first: in one RemoveCheckpoints activity on the fast
// path, else each through its own SubsumeCheckpoint. It returns the newest
// checkpoint it saw referenced, or the largest value when retention is off:
// nothing to catch up on then.
func retain(ctx workflow.Context, local bool, status *contract.CoordinatorStatus) (uint64, error) {
	job := stores.JobID{Cluster: status.Cluster, Job: status.Job}
	var view activities.RetentionView
	if err := storeCall.execute(ctx, local, a.ReadRetention, job).Get(ctx, &view); err != nil {
		return 0, fmt.Errorf("list references of %s: %w", job, err)
	}
	status.Retain = view.Retain
	if view.Retain <= 0 {
		return math.MaxUint64, nil
	}
	switch {
	case view.Job == (stores.JobState{}):
		// A job never claimed has no reference to remove; a view recorded
		// by an older worker, which did not read the job, has no job state
		// either, and replays with the epoch the coordinator held then.
	case view.Job.Owner == "" || view.Job.Retired:
		// Forgotten or retired: no epoch may remove anything.
		return math.MaxUint64, nil
	default:
		status.Epoch = view.Job.Epoch
	}
	var seen uint64
	for _, e := range view.References {
		seen = max(seen, e.Checkpoint)
	}
	var remove []stores.Entry
	status.Retained, remove = activities.RetentionPlan(view.References, view.Retain)
	if local {
		return seen, removeBatch(ctx, job, status, remove)
	}
	for _, e := range remove {
		req := SubsumeRequest{
			CheckpointID: stores.CheckpointID{JobID: job, Checkpoint: e.Checkpoint},
			Epoch:        status.Epoch,
			Owner:        view.Job.Owner,
			HandleKey:    e.Reference.Handle,
			Savepoint:    e.Reference.Savepoint,
		}
		// A removal a previous run started keeps its ID: starting it again
		// fails with "already started" instead of removing twice.
		cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: req.WorkflowID()})
		var res SubsumeResult
		err := workflow.ExecuteChildWorkflow(cctx, SubsumeCheckpoint, req).Get(ctx, &res)
		var started *temporal.ChildWorkflowExecutionAlreadyStartedError
		switch {
		case errors.As(err, &started):
			continue // running or done under its own ID; the next pass sees its effect
		case err != nil:
			return seen, fmt.Errorf("remove checkpoint %d: %w", e.Checkpoint, err)
		case res.Deposed:
			status.Deposed = true
			return seen, nil
		}
		status.Removed++
	}
	return seen, nil
}

// removeBatch removes a pass's references through one RemoveCheckpoints
// activity, which the server retries until it is done, and collects the
// tombstones earlier passes left uncollected.
func removeBatch(ctx workflow.Context, job stores.JobID, status *contract.CoordinatorStatus, remove []stores.Entry) error {
	if len(remove) == 0 && len(status.Uncollected) == 0 {
		return nil
	}
	in := activities.RemovalInput{Job: job, Epoch: status.Epoch, Uncollected: status.Uncollected}
	in.Items = activities.Removals(remove)
	var res activities.RemovalResult
	if err := workflow.ExecuteActivity(removalOptions(ctx), a.RemoveCheckpoints, in).Get(ctx, &res); err != nil {
		return fmt.Errorf("remove %d checkpoints of %s: %w", len(in.Items), job, err)
	}
	status.Removed += res.Removed
	status.Deposed = res.Deposed
	status.Uncollected = res.Uncollected
	if len(res.Kept) > 0 {
		return fmt.Errorf("checkpoints of %s whose reference is removed and state kept: %+v", job, res.Kept)
	}
	return nil
}
