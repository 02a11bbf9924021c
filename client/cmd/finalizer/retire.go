package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/workflows"
)

func retireCommand() command {
	var id identity
	return command{
		summary: "retire a job before its checkpoint IDs start over (tombstones every reference)",
		flags: func(fs *flag.FlagSet) func() error {
			id.register(fs, false)
			return func() error {
				if err := requireFlags(fs, "cluster", "job", "epoch"); err != nil {
					return err
				}
				return id.validateJob()
			}
		},
		run: func(ctx context.Context, c *client.Client, out *printer) error {
			req := workflows.RetireRequest{Cluster: id.cluster, Job: id.job, Epoch: id.epoch}
			if err := c.Retire(ctx, req); err != nil {
				return err
			}
			return out.result(map[string]any{"retired": req},
				fmt.Sprintf("retired %s/%s at epoch %d", req.Cluster, req.Job, req.Epoch))
		},
	}
}
