package main

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// reportText is reconcile's text output: the counts, then each list.
func reportText(r contract.ReconcileReport) string {
	var b strings.Builder
	mode := "applied"
	if r.DryRun {
		mode = "dry run: nothing changed"
	}
	c := r.Counts
	fmt.Fprintf(&b, "reconciled cluster %s (%s) at %s\n", r.Cluster, mode, r.Now.UTC().Format(time.RFC3339))
	fmt.Fprintf(&b, "  jobs %d, references %d, dangling %d (quarantined %d), orphans %d (kept %d, discarded %d), in flight %d, tombstones %d (collected %d), foreign keys %d, errors %d\n",
		c.Jobs, c.References, c.Dangling, c.Quarantined, c.Orphans, c.Kept, c.Discarded, c.InFlight, c.Tombstones, c.TombstonesCollected, c.Foreign, c.Errors)
	section(&b, "dangling references", len(r.Dangling), func(tw *tabwriter.Writer) {
		fmt.Fprintln(tw, "  CHECKPOINT\tPROBLEM\tHANDLE\tACTION")
		for _, d := range r.Dangling {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", d.Checkpoint, d.Problem, d.HandleKey, d.Action)
		}
	})
	section(&b, "orphaned state", len(r.Orphans), func(tw *tabwriter.Writer) {
		fmt.Fprintln(tw, "  HANDLE\tFINALIZATION\tACTION")
		for _, o := range r.Orphans {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", o.HandleKey, orDash(o.Finalization), o.Action)
		}
	})
	section(&b, "tombstones past the TTL", len(r.TombstonesCollected), func(tw *tabwriter.Writer) {
		fmt.Fprintln(tw, "  JOB\tCHECKPOINTS\tCOLLECTED\tACTION")
		for _, t := range r.TombstonesCollected {
			fmt.Fprintf(tw, "  %s\t%v\t%d\t%s\n", t.Job, t.Checkpoints, t.Collected, t.Action)
		}
	})
	section(&b, "errors", len(r.Errors), func(tw *tabwriter.Writer) {
		for _, e := range r.Errors {
			fmt.Fprintf(tw, "  %s\n", e)
		}
	})
	if r.Truncated {
		fmt.Fprintf(&b, "(lists capped; the counts are complete)\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func section(b *strings.Builder, title string, n int, rows func(*tabwriter.Writer)) {
	if n == 0 {
		return
	}
	fmt.Fprintf(b, "%s:\n", title)
	tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
	rows(tw)
	_ = tw.Flush() // a strings.Builder does not fail
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
