package faultharness

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/workflows"
)

const (
	// reconcilePassTimeout bounds the wait for one pass; a pass that
	// outlives it (Temporal restarting) goes on and is not counted.
	reconcilePassTimeout = 2 * time.Minute
	// reconcileReportLimit keeps every finding of a pass in its report.
	reconcileReportLimit = 10000
)

// reconcileLoop runs the reconciler over every lane's cluster every
// ReconcileEvery until ctx ends, as an operator's schedule would: apply,
// dangling references quarantined, and a grace and tombstone TTL short
// enough that a retired job is forgotten within the run.
func (r *run) reconcileLoop(ctx context.Context) {
	var wg sync.WaitGroup
	for _, l := range r.w.lanes {
		wg.Go(func() {
			for sleep(ctx, r.cfg.ReconcileEvery); ctx.Err() == nil; sleep(ctx, r.cfg.ReconcileEvery) {
				if err := r.reconcilePass(ctx, l); err != nil {
					r.harnessError(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// reconcilePass runs one pass and takes in its report; only a request the
// client refuses stops the loop (it would be refused every time).
func (r *run) reconcilePass(ctx context.Context, l *lane) error {
	req := workflows.ReconcileRequest{
		Cluster: l.cluster, Apply: true, QuarantineDangling: true,
		Grace: r.cfg.ReconcileGrace, TombstoneTTL: r.cfg.TombstoneTTL, ReportLimit: reconcileReportLimit,
	}
	pctx, cancel := context.WithTimeout(ctx, reconcilePassTimeout)
	defer cancel()
	rep, err := l.fc.Reconcile(pctx, req)
	switch {
	case errors.Is(err, client.ErrInvalidRequest):
		return fmt.Errorf("reconciler of %s: request refused, no passes: %w", l.cluster, err)
	case err != nil:
		if ctx.Err() == nil {
			r.cfg.Logger.Info("reconciler pass failed", "cluster", l.cluster, "error", err)
		}
		r.mu.Lock()
		r.rep.Lifecycle.Reconciler.Failed++
		r.mu.Unlock()
		return nil
	}
	r.absorb(rep)
	return nil
}

// absorb adds a pass's counts to the report and remembers the orphans it
// kept. A reference it quarantined was dangling: a published reference
// whose handle or data had gone (I1), unless the reconciler misjudged it
// and removed a healthy checkpoint; either way a violation.
func (r *run) absorb(rep workflows.ReconcileReport) {
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
		if strings.HasPrefix(o.Action, workflows.ActionKeptPrefix) {
			r.kept[o.HandleKey] = o.Action
		}
	}
	r.mu.Unlock()
	for _, d := range rep.Dangling {
		if d.Action == workflows.ActionQuarantined {
			r.violation("I1", d.Checkpoint, "the reconciler found the published reference dangling and quarantined it (handle %s, token %s): %s",
				d.HandleKey, short(d.Token), d.Problem)
		}
	}
}
