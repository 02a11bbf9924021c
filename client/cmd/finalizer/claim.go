package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

func claimCommand(a *app) *cobra.Command {
	var (
		id    identity
		owner string
	)
	cmd := &cobra.Command{
		Use:     "claim",
		Short:   "claim a job's leadership epoch (fences every older one); prints the restore point",
		Example: "  finalizer claim --cluster prod-eu --job 0a1b2c3d4e5f60718293a4b5c6d7e8f9 --epoch 4 --owner jm-4",
	}
	fs := cmd.Flags()
	id.register(fs, false)
	fs.StringVar(&owner, "owner", "", "the claimant, e.g. the job manager's leader session ID")
	check := func() error {
		if err := stores.ValidateClaim(stores.JobID{Cluster: id.cluster, Job: id.job}, id.epoch, owner); err != nil {
			return invalid(err)
		}
		return nil
	}
	return a.connected(cmd, []string{"cluster", "job", "epoch", "owner"}, check, func(ctx context.Context, c *client.Client, out *printer) error {
		req := contract.ClaimRequest{Cluster: id.cluster, Job: id.job, Epoch: id.epoch, Owner: owner}
		rp, err := c.ClaimEpoch(ctx, req)
		if err != nil {
			return err
		}
		return out.result(rp, fmt.Sprintf("claimed epoch %d of %s/%s for %s\n%s",
			req.Epoch, req.Cluster, req.Job, req.Owner, restoreText(rp)))
	})
}
