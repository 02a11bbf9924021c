package main

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
)

func statusCommand() command {
	var id identity
	return command{
		summary:  "show a finalization's phase, attempts and verifications",
		required: []string{"cluster", "job", "epoch", "checkpoint"},
		example:  "finalizer status --cluster prod-eu --job 0a1b2c3d4e5f60718293a4b5c6d7e8f9 --epoch 4 --checkpoint 42 --json",
		flags: func(fs *pflag.FlagSet) func() error {
			id.register(fs, true)
			return func() error {
				return id.validateCheckpoint()
			}
		},
		run: func(ctx context.Context, c *client.Client, out *printer) error {
			st, err := c.Status(ctx, id.cluster, id.job, id.epoch, id.checkpoint)
			if err != nil {
				return err
			}
			wid := contract.FinalizeRequest{Cluster: id.cluster, Job: id.job, Epoch: id.epoch, Checkpoint: id.checkpoint}.WorkflowID()
			return out.result(statusJSON(st), statusText(wid, st))
		},
	}
}

// statusOutput is the status answer as --json prints it: its timings as
// duration strings ("1.5s"), as every duration the tool prints, where the
// query answers nanoseconds.
type statusOutput struct {
	contract.Status
	Timings map[contract.Phase]string `json:"timings"`
}

func statusJSON(st contract.Status) statusOutput {
	o := statusOutput{Status: st, Timings: make(map[contract.Phase]string, len(st.Timings))}
	for p, d := range st.Timings {
		o.Timings[p] = d.String()
	}
	return o
}
