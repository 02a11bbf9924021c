package main

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

func claimCommand() command {
	var (
		id    identity
		owner string
	)
	return command{
		summary:  "claim a job's leadership epoch (fences every older one); prints the restore point",
		required: []string{"cluster", "job", "epoch", "owner"},
		example:  "finalizer claim --cluster prod-eu --job 0a1b2c3d4e5f60718293a4b5c6d7e8f9 --epoch 4 --owner jm-4",
		flags: func(fs *pflag.FlagSet) func() error {
			id.register(fs, false)
			fs.StringVar(&owner, "owner", "", "the claimant, e.g. the job manager's leader session ID")
			return func() error {
				if err := stores.ValidateClaim(stores.JobID{Cluster: id.cluster, Job: id.job}, id.epoch, owner); err != nil {
					return invalid(err)
				}
				return nil
			}
		},
		run: func(ctx context.Context, c *client.Client, out *printer) error {
			req := contract.ClaimRequest{Cluster: id.cluster, Job: id.job, Epoch: id.epoch, Owner: owner}
			rp, err := c.ClaimEpoch(ctx, req)
			if err != nil {
				return err
			}
			return out.result(rp, fmt.Sprintf("claimed epoch %d of %s/%s for %s\n%s",
				req.Epoch, req.Cluster, req.Job, req.Owner, restoreText(rp)))
		},
	}
}
