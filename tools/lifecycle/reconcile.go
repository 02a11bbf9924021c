package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/activities"
	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// historyRetention is the namespace's retention of closed histories on the
// simulated clock: Temporal's smallest, a day. A clock step of 25 h
// expires every history closed before it.
const historyRetention = 24 * time.Hour

// finalizations answers the reconciler's DescribeFinalizations from the
// executions the simulation started: Temporal's side of that activity,
// which answers NotFound once a closed history has expired.
type finalizations struct{ w *world }

func (f finalizations) Finalization(_ context.Context, workflowID string) (activities.FinalizationState, error) {
	st := activities.FinalizationState{WorkflowID: workflowID}
	fn, ok := f.w.byWfID[workflowID]
	switch {
	case !ok:
	case fn.judged && f.w.now().Sub(fn.endedAt) > historyRetention:
		f.w.seen["finalization histories expired"]++
	case !fn.ended():
		st.Found, st.Running, st.Status = true, true, "Running"
	case fn.terminated:
		st.Found, st.Status = true, "Terminated"
	default:
		st.Found, st.Status, st.Phase = true, "Completed", string(fn.result)
	}
	return st, nil
}

// reconcileRun is one Reconcile execution (workflows/reconcile): its
// request and, for a run continued as new, the carry its starter put in.
// The decisions between activities mirror workflows/reconcile's
// reconcile.go, orphans.go and findings.go.
func reconcileRun(w *worker, req contract.ReconcileRequest, now time.Time) string {
	if err := req.Validate(); err != nil {
		return "invalid: " + err.Error()
	}
	graceCutoff, tombstoneCutoff := now.Add(-time.Duration(req.Grace)), now.Add(-time.Duration(req.TombstoneTTL))
	var todo []stores.JobID
	if req.Carry != nil {
		// newReconciliation: a continued run takes its report (and cutoffs)
		// and jobs from the carry.
		graceCutoff, tombstoneCutoff, todo = req.Carry.Report.GraceCutoff, req.Carry.Report.TombstoneCutoff, req.Carry.Jobs
	} else {
		var err error
		if todo, err = untilDone[[]stores.JobID](w, w.racts.ListClusterJobs, reconcileacts.ListJobsInput{Cluster: req.Cluster}); err != nil {
			return "list jobs failed: " + clip(contract.FailureMessage(err))
		}
	}
	var did []string
	for _, job := range todo {
		in := reconcileacts.InventoryInput{JobID: job, GraceCutoff: graceCutoff, TombstoneCutoff: tombstoneCutoff}
		inv, err := untilDone[reconcileacts.JobInventory](w, w.racts.InventoryJob, in)
		if err != nil {
			did = append(did, job.String()+": inventory failed")
			continue
		}
		did = append(did, reconcileJob(w, req, inv, graceCutoff, tombstoneCutoff)...)
	}
	return fmt.Sprintf("reconciled %v: %s", todo, strings.Join(did, "; "))
}

// reconcileJob is the reconciliation of one job after its inventory:
// dangling references, orphans, then tombstones.
func reconcileJob(w *worker, req contract.ReconcileRequest, inv reconcileacts.JobInventory, graceCutoff, tombstoneCutoff time.Time) []string {
	var did []string
	if req.Apply && req.QuarantineDangling {
		for _, d := range inv.Dangling {
			in := reconcileacts.QuarantineInput{CheckpointID: stores.CheckpointID{JobID: inv.JobID, Checkpoint: d.Checkpoint}, Token: d.Token, HandleKey: d.HandleKey}
			if res, err := untilDone[reconcileacts.QuarantineResult](w, w.racts.QuarantineDangling, in); err == nil && res.Quarantined {
				did = append(did, fmt.Sprintf("quarantined %s/%d", inv.JobID, d.Checkpoint))
				w.seen["dangling references quarantined"]++
			}
		}
	}
	did = append(did, reconcileOrphans(w, req, inv, graceCutoff)...)
	if req.Apply && (len(inv.Collectable) > 0 || inv.Forget) {
		n, err := untilDone[int](w, w.racts.CollectTombstones, reconcileacts.CollectInput{JobID: inv.JobID, OlderThan: tombstoneCutoff})
		if err == nil {
			did = append(did, fmt.Sprintf("collected %d tombstones of %s (forget %t)", n, inv.JobID, inv.Forget))
			w.seen["tombstones collected"] += n
		}
	}
	return did
}

// reconcileOrphans is workflows/reconcile's orphans: a candidate the
// inventory keeps, or marks pending discard, is reported; for the rest the finalization decides:
// running is left alone, abandoned kept, closed or not found (its history
// expired) discarded behind the guard's fence.
func reconcileOrphans(w *worker, req contract.ReconcileRequest, inv reconcileacts.JobInventory, graceCutoff time.Time) []string {
	var ask []reconcileacts.OrphanCandidate
	describe := reconcileacts.DescribeInput{JobID: inv.JobID}
	for _, c := range inv.Orphans {
		// Every candidate is in the run's report, whatever becomes of it.
		w.orphans = append(w.orphans, c.Key)
		id := contract.FinalizeRequest{Cluster: inv.Cluster, Job: inv.Job, Epoch: c.Epoch, Checkpoint: c.Checkpoint}
		if c.Entry.HoldsToken(id.Token()) || c.Keep != "" || c.Pending != "" {
			continue
		}
		ask = append(ask, c)
		describe.Finalizations = append(describe.Finalizations, reconcileacts.FinalizationIdentity{Epoch: c.Epoch, Checkpoint: c.Checkpoint})
	}
	if len(ask) == 0 {
		return nil
	}
	states, err := untilDone[[]activities.FinalizationState](w, w.racts.DescribeFinalizations, describe)
	if err != nil {
		return []string{"describe failed"}
	}
	var did []string
	for i, c := range ask {
		st := states[i]
		if st.Running || st.Phase == string(contract.Abandoned) || !req.Apply {
			continue
		}
		in := reconcileacts.OrphanInput{CheckpointID: c.CheckpointID, Epoch: c.Epoch, HandleKey: c.Key, RetiredBefore: graceCutoff}
		res, err := untilDone[reconcileacts.OrphanResult](w, w.racts.DiscardOrphan, in)
		var app *temporal.ApplicationError
		switch {
		case errors.As(err, &app):
			did = append(did, fmt.Sprintf("orphan %s kept: %s", c.Key, app.Type()))
		case err != nil, res.Referenced:
		case res.Kept != "":
			did = append(did, fmt.Sprintf("orphan %s kept: %s", c.Key, clip(res.Kept)))
		default:
			did = append(did, fmt.Sprintf("orphan %s discarded (%d objects)", c.Key, res.Discarded.DeletedObjects))
			w.seen["orphans discarded"]++
		}
	}
	return did
}
