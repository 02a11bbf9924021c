package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
)

func retireCommand(a *app) *cobra.Command {
	var id identity
	var (
		discard bool
		owner   string
	)
	cmd := &cobra.Command{
		Use:     "retire",
		Short:   "retire a job before its checkpoint IDs start over (tombstones every reference)",
		Example: "  finalizer retire --cluster prod-eu --job 0a1b2c3d4e5f60718293a4b5c6d7e8f9 --epoch 4 --owner jm-4",
	}
	fs := cmd.Flags()
	id.register(fs, false)
	fs.StringVar(&owner, "owner", "", "the epoch's claimant, as the claim named it")
	fs.BoolVar(&discard, "discard-checkpoints", false,
		"let the reconciler discard the retired checkpoints' state once its grace has passed (default: retain it for the operator, e.g. to restore a resubmitted job from it)")
	check := func() error {
		if err := id.validateJob(); err != nil {
			return err
		}
		if err := contract.ValidateOwner(owner); err != nil {
			return invalid(err)
		}
		return nil
	}
	return a.connected(cmd, []string{"cluster", "job", "epoch", "owner"}, check, func(ctx context.Context, c *client.Client, out *printer) error {
		req := contract.RetireRequest{Cluster: id.cluster, Job: id.job, Epoch: id.epoch, Owner: owner, DiscardCheckpoints: discard}
		if err := c.Retire(ctx, req); err != nil {
			return err
		}
		return out.result(map[string]any{"retired": req},
			fmt.Sprintf("retired %s/%s at epoch %d", req.Cluster, req.Job, req.Epoch))
	})
}
