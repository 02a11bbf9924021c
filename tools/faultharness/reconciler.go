package faultharness

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/internal/pace"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/invariants"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/world"
)

const (
	// passesInFlight bounds a lane's passes under way: a pass whose
	// activity ran on a killed worker waits out that activity's timeout
	// (minutes), and the next passes must not wait for it.
	passesInFlight = 8
	// passSettle is how long the passes under way get to end once the run
	// has settled; those still waiting then are terminated.
	passSettle = 15 * time.Second
	// reconcileReportLimit keeps every finding of a pass in its report.
	reconcileReportLimit = 10000
)

// reconcileLoop starts a pass of the reconciler over every lane's cluster
// every ReconcileEvery until ctx ends, as an operator's schedule would:
// apply, dangling references quarantined, and a grace and tombstone TTL
// short enough that a retired job is forgotten within the run. Once ctx
// ends the passes under way get passSettle to end and the rest are
// terminated, so that none changes anything while the run is checked.
func (r *run) reconcileLoop(ctx context.Context) {
	var wg sync.WaitGroup
	for _, l := range r.w.Lanes() {
		wg.Go(func() { r.reconcileLane(ctx, l) })
	}
	wg.Wait()
}

func (r *run) reconcileLane(ctx context.Context, l *world.Lane) {
	var passes sync.WaitGroup
	defer passes.Wait()
	slots := make(chan struct{}, passesInFlight)
	req := contract.ReconcileRequest{
		Cluster: l.Cluster, Apply: true, QuarantineDangling: true,
		Grace: contract.Duration(r.cfg.ReconcileGrace), TombstoneTTL: contract.Duration(r.cfg.TombstoneTTL), ReportLimit: reconcileReportLimit,
	}
	for pace.Sleep(ctx, r.cfg.ReconcileEvery); ctx.Err() == nil; pace.Sleep(ctx, r.cfg.ReconcileEvery) {
		select {
		case slots <- struct{}{}:
		default:
			continue // every slot holds a pass still under way
		}
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		pass, err := l.Client.StartReconcile(sctx, req)
		cancel()
		switch {
		case errors.Is(err, client.ErrInvalidRequest):
			r.harnessError(fmt.Errorf("reconciler of %s: request refused, no passes: %w", l.Cluster, err))
			<-slots
			return
		case err != nil:
			r.passFailed(l, err)
			<-slots
			continue
		}
		passes.Go(func() {
			defer func() { <-slots }()
			r.awaitPass(ctx, l, pass)
		})
	}
}

// awaitPass takes in the pass's report when it ends; once ctx ended it
// waits passSettle more, then terminates the pass.
func (r *run) awaitPass(ctx context.Context, l *world.Lane, pass *client.ReconcileRun) {
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	defer context.AfterFunc(ctx, func() { time.AfterFunc(passSettle, cancel) })()
	rep, err := pass.Wait(wctx)
	if err == nil {
		r.absorb(rep)
		return
	}
	r.passFailed(l, err)
	if ctx.Err() != nil {
		tctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := r.w.Temporal().TerminateWorkflow(tctx, pass.WorkflowID, "", "fault harness: the run has settled"); err != nil {
			r.cfg.Logger.Info("terminate a reconciler pass", "workflowId", pass.WorkflowID, "error", err)
		}
	}
}

func (r *run) passFailed(l *world.Lane, err error) {
	r.cfg.Logger.Info("reconciler pass failed", "cluster", l.Cluster, "error", err)
	r.mu.Lock()
	r.rep.Lifecycle.Reconciler.Failed++
	r.mu.Unlock()
}

// absorb adds a pass's counts to the report and remembers the orphans it
// kept. A reference it quarantined was dangling: a published reference
// whose handle or data had gone (I1), unless the reconciler misjudged it
// and removed a healthy checkpoint; either way a violation.
func (r *run) absorb(rep contract.ReconcileReport) {
	r.mu.Lock()
	rc := &r.rep.Lifecycle.Reconciler
	c := rep.Counts
	rc.Passes++
	rc.Dangling += c.Dangling
	rc.Quarantined += c.Quarantined
	rc.Orphans += c.Orphans
	rc.Kept += c.Kept
	rc.Discarded += c.Discarded
	rc.TombstonesCollected += c.TombstonesCollected
	rc.Errors += c.Errors
	for _, o := range rep.Orphans {
		if strings.HasPrefix(o.Action, contract.ActionKeptPrefix) {
			r.kept[o.HandleKey] = o.Action
		}
	}
	r.mu.Unlock()
	for _, d := range rep.Dangling {
		if d.Action == contract.ActionQuarantined {
			r.violation("I1", d.Checkpoint, "the reconciler found the published reference dangling and quarantined it (handle %s, token %s): %s",
				d.HandleKey, invariants.Short(d.Token), d.Problem)
		}
	}
}
