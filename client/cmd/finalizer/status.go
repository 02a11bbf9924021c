package main

import (
	"context"
	"flag"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/workflows"
)

func statusCommand() command {
	var id identity
	return command{
		summary: "show a finalization's phase, attempts and verifications",
		flags: func(fs *flag.FlagSet) func() error {
			id.register(fs, true)
			return func() error {
				if err := requireFlags(fs, "cluster", "job", "epoch", "checkpoint"); err != nil {
					return err
				}
				return id.validateCheckpoint()
			}
		},
		run: func(ctx context.Context, c *client.Client, out *printer) error {
			st, err := c.Status(ctx, id.cluster, id.job, id.epoch, id.checkpoint)
			if err != nil {
				return err
			}
			wid := workflows.FinalizeRequest{Cluster: id.cluster, Job: id.job, Epoch: id.epoch, Checkpoint: id.checkpoint}.WorkflowID()
			return out.result(st, statusText(wid, st))
		},
	}
}
