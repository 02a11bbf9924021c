package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/checkpoint-finalizer/finalizer/client"
)

func listCommand(a *app) *cobra.Command {
	var (
		stuck     bool
		olderThan time.Duration
	)
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "list finalizations stuck in any phase, and retirements, with their last error (--stuck [--older-than 5m])",
		Example: "  finalizer list --stuck --older-than 10m --json",
	}
	fs := cmd.Flags()
	fs.BoolVar(&stuck, "stuck", false, "list finalizations that stayed in one phase (Persisting, Verifying, ...) too long, and retirements running too long (required: the only listing so far)")
	fs.DurationVar(&olderThan, "older-than", 5*time.Minute, "how long in one phase (a retirement: since its start) counts as stuck")
	check := func() error {
		if !stuck {
			return usagef("list: --stuck is required (the only listing so far)")
		}
		if olderThan < 0 {
			return usagef("list: --older-than must not be negative, got %s", olderThan)
		}
		return nil
	}
	return a.connected(cmd, nil, check, func(ctx context.Context, c *client.Client, out *printer) error {
		list, err := c.ListStuck(ctx, olderThan)
		if err != nil {
			return err
		}
		retirements, err := c.ListStuckRetirements(ctx, olderThan)
		if err != nil {
			return err
		}
		// JSON: [] rather than null
		list = append(append([]client.Stuck{}, list...), retirements...)
		return out.result(list, stuckTable(list, olderThan, out.wide()))
	})
}

// stuckTable is list's text output; wide adds the identity's columns and
// the start time. The last error comes last: the longest, and it reads
// whole there.
func stuckTable(list []client.Stuck, olderThan time.Duration, wide bool) string {
	if len(list) == 0 {
		return fmt.Sprintf("no finalization in one phase, nor retirement, for longer than %s", olderThan)
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	header := "WORKFLOW ID\tRUN ID\tPHASE\tFOR\tSTORE\tSUMMARY"
	if wide {
		header += "\tCLUSTER\tJOB\tEPOCH\tCHECKPOINT\tSTARTED"
	}
	fmt.Fprintln(tw, header+"\tLAST ERROR")
	now := time.Now()
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s", s.WorkflowID, s.RunID, s.Phase, now.Sub(s.PhaseSince).Round(time.Second), s.StoreKind, oneLine(s.Summary))
		if wide {
			fmt.Fprintf(tw, "\t%s\t%s\t%d\t%d\t%s", s.Cluster, s.Job, s.Epoch, s.Checkpoint, s.StartTime.UTC().Format(time.RFC3339))
		}
		fmt.Fprintf(tw, "\t%s\n", oneLine(s.LastError))
	}
	_ = tw.Flush() // a strings.Builder does not fail
	return strings.TrimRight(b.String(), "\n")
}

// oneLine keeps a table row on its line: an error's message may span
// several.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
