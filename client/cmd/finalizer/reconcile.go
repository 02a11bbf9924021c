package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
)

// DefaultScheduleInterval is how often a scheduled reconciler runs unless
// --interval says otherwise.
const DefaultScheduleInterval = 10 * time.Minute

// errReconcileErrors: the run finished, but some items could not be
// settled; the report (printed already) lists them.
var errReconcileErrors = errors.New("reconcile finished with errors")

// scheduleOutput is reconcile --schedule's JSON output.
type scheduleOutput struct {
	ScheduleID string                    `json:"scheduleId"`
	Created    bool                      `json:"created"`
	Interval   string                    `json:"interval"`
	Request    contract.ReconcileRequest `json:"request"`
}

func reconcileCommand(a *app) *cobra.Command {
	var (
		req      contract.ReconcileRequest
		schedule bool
		interval time.Duration
	)
	cmd := &cobra.Command{
		Use:     "reconcile",
		Short:   "compare the HA store with the state bucket once (dry run unless --apply), or --schedule it",
		Example: "  finalizer reconcile --cluster prod-eu --apply --quarantine-dangling --schedule --interval 10m",
	}
	fs := cmd.Flags()
	fs.StringVar(&req.Cluster, "cluster", "", "cluster ID (DNS-1123 label)")
	fs.BoolVar(&req.Apply, "apply", false, "discard orphans, collect tombstones and (with --quarantine-dangling) quarantine; without it nothing changes")
	fs.BoolVar(&req.QuarantineDangling, "quarantine-dangling", false, "tombstone dangling references (with --apply), after confirming their state is gone")
	// A contract.Duration is a time.Duration written as a string in JSON.
	fs.DurationVar((*time.Duration)(&req.Grace), "grace", contract.DefaultReconcileGrace, "only handles older than this can be orphans (the worker's -reconcile-min-grace is a floor)")
	fs.DurationVar((*time.Duration)(&req.TombstoneTTL), "tombstone-ttl", contract.DefaultTombstoneTTL, fmt.Sprintf("collect tombstones older than this (at least %s; the worker's -reconcile-min-tombstone-ttl is a floor)", contract.MinTombstoneTTL))
	fs.IntVar(&req.ReportLimit, "report-limit", contract.DefaultReportLimit, "cap of each list in the report (the counts are complete)")
	fs.BoolVar(&schedule, "schedule", false, "create or update the cluster's Temporal Schedule instead of running once")
	fs.DurationVar(&interval, "interval", DefaultScheduleInterval, "with --schedule: time between runs")
	check := func() error {
		if fs.Changed("interval") && !schedule {
			return usagef("reconcile: --interval needs --schedule")
		}
		if err := req.Validate(); err != nil {
			return invalid(err)
		}
		if schedule && interval < client.MinReconcileInterval {
			return usagef("reconcile: --interval must be at least %s, got %s", client.MinReconcileInterval, interval)
		}
		return nil
	}
	return a.connected(cmd, []string{"cluster"}, check, func(ctx context.Context, c *client.Client, out *printer) error {
		if schedule {
			created, err := c.ScheduleReconcile(ctx, req, interval)
			if err != nil {
				return err
			}
			o := scheduleOutput{ScheduleID: contract.ReconcileScheduleID(req.Cluster), Created: created, Interval: interval.String(), Request: req}
			return out.result(o, scheduleText(o))
		}
		run, err := c.StartReconcile(ctx, req)
		if err != nil {
			return err
		}
		fmt.Fprintf(out.progress, "%s started (run %s)\n", run.WorkflowID, run.RunID)
		rep, err := run.Wait(ctx)
		if err != nil {
			return err
		}
		if err := out.result(rep, reportText(rep)); err != nil {
			return err
		}
		if rep.Counts.Errors > 0 {
			return fmt.Errorf("%w: %d item(s) not settled, see the report", errReconcileErrors, rep.Counts.Errors)
		}
		return nil
	})
}

func scheduleText(o scheduleOutput) string {
	verb := "updated"
	if o.Created {
		verb = "created"
	}
	mode := "dry runs"
	if o.Request.Apply {
		mode = "applied runs"
	}
	return fmt.Sprintf("%s schedule %s: %s every %s (grace %s, tombstone TTL %s, quarantine dangling %t)",
		verb, o.ScheduleID, mode, o.Interval, o.Request.Grace, o.Request.TombstoneTTL, o.Request.QuarantineDangling)
}
