package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

func latestCommand(a *app) *cobra.Command {
	var id identity
	cmd := &cobra.Command{
		Use:     "latest",
		Short:   "show a job's restore point (newest published checkpoint) without claiming",
		Example: "  finalizer latest --cluster prod-eu --job 0a1b2c3d4e5f60718293a4b5c6d7e8f9 --json | jq -r .latest.restorePath",
	}
	fs := cmd.Flags()
	fs.StringVar(&id.cluster, "cluster", "", "cluster ID (DNS-1123 label)")
	fs.StringVar(&id.job, "job", "", "job ID (DNS-1123 label)")
	check := func() error {
		if err := (stores.JobID{Cluster: id.cluster, Job: id.job}).Validate(); err != nil {
			return invalid(err)
		}
		return nil
	}
	return a.connected(cmd, []string{"cluster", "job"}, check, func(ctx context.Context, c *client.Client, out *printer) error {
		rp, err := c.LatestCheckpoint(ctx, stores.JobID{Cluster: id.cluster, Job: id.job})
		if err != nil {
			return err
		}
		return out.result(rp, restoreText(rp))
	})
}

// restoreText is the restore point as claim and latest print it.
func restoreText(rp contract.RestorePoint) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s at epoch %d: ", rp.Cluster, rp.Job, rp.Epoch)
	switch rp.State {
	case contract.RestoreResolved:
		fmt.Fprintf(&b, "restore from checkpoint %d\n%s", rp.Latest.Checkpoint, checkpointText(rp.Latest))
	case contract.RestoreDangling:
		fmt.Fprintf(&b, "the newest checkpoint %d does not resolve (%s)\n%s", rp.Latest.Checkpoint, rp.Dangling, checkpointText(rp.Latest))
		if rp.Fallback != nil {
			fmt.Fprintf(&b, "\nnewest that resolves: checkpoint %d\n%s", rp.Fallback.Checkpoint, checkpointText(rp.Fallback))
		} else {
			b.WriteString("\nno older checkpoint resolves")
		}
	default:
		b.WriteString("no published checkpoint")
	}
	return b.String()
}

func checkpointText(c *contract.RestoreCheckpoint) string {
	s := fmt.Sprintf("  handle:       %s", c.HandleKey)
	if c.RestorePath != "" {
		s = fmt.Sprintf("  restore path: %s\n  epoch:        %d\n  sha256:       %s\n", c.RestorePath, c.Epoch, c.MetadataSHA256) + s
	}
	if c.Savepoint {
		s += "\n  savepoint:    true"
	}
	return s
}
