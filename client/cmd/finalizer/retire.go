package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
)

func retireCommand() command {
	var id identity
	var discard bool
	return command{
		summary:  "retire a job before its checkpoint IDs start over (tombstones every reference)",
		required: []string{"cluster", "job", "epoch"},
		example:  "finalizer retire --cluster prod-eu --job 0a1b2c3d4e5f60718293a4b5c6d7e8f9 --epoch 4",
		flags: func(fs *flag.FlagSet) func() error {
			id.register(fs, false)
			fs.BoolVar(&discard, "discard-checkpoints", false,
				"let the reconciler discard the retired checkpoints' state once its grace has passed (default: retain it for the operator, e.g. to restore a resubmitted job from it)")
			return func() error {
				return id.validateJob()
			}
		},
		run: func(ctx context.Context, c *client.Client, out *printer) error {
			req := contract.RetireRequest{Cluster: id.cluster, Job: id.job, Epoch: id.epoch, DiscardCheckpoints: discard}
			if err := c.Retire(ctx, req); err != nil {
				return err
			}
			return out.result(map[string]any{"retired": req},
				fmt.Sprintf("retired %s/%s at epoch %d", req.Cluster, req.Job, req.Epoch))
		},
	}
}
