package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
)

func statusCommand(a *app) *cobra.Command {
	var id identity
	cmd := &cobra.Command{
		Use:     "status",
		Short:   "show a finalization's phase, attempts, verifications, last error and pending activity",
		Example: "  finalizer status --cluster prod-eu --job 0a1b2c3d4e5f60718293a4b5c6d7e8f9 --epoch 4 --checkpoint 42 --json",
	}
	fs := cmd.Flags()
	id.register(fs, true)
	check := func() error {
		return id.validateCheckpoint()
	}
	return a.connected(cmd, []string{"cluster", "job", "epoch", "checkpoint"}, check, func(ctx context.Context, c *client.Client, out *printer) error {
		wid := contract.FinalizeRequest{Cluster: id.cluster, Job: id.job, Epoch: id.epoch, Checkpoint: id.checkpoint}.WorkflowID()
		qctx, cancel := context.WithTimeout(ctx, statusQueryTimeout)
		st, err := c.Status(qctx, id.cluster, id.job, id.epoch, id.checkpoint)
		cancel()
		if err != nil {
			if errors.Is(err, client.ErrNotFound) || ctx.Err() != nil {
				return err
			}
			return describedStatus(ctx, c, out, wid, err)
		}
		var pending []client.PendingActivity
		if !st.Phase.Terminal() {
			// The status answered: a describe that fails only leaves
			// out what it would add.
			if pending, err = c.PendingActivities(ctx, wid); err != nil {
				fmt.Fprintf(out.progress, "finalizer: no pending activities shown: %v\n", err)
			}
		}
		o := statusJSON(st, pending)
		return out.result(o, statusText(wid, o))
	})
}

// statusQueryTimeout bounds the status query: a worker answers in
// milliseconds, so a query unanswered this long has no worker to answer it
// (every worker down, or none polls the task queue).
const statusQueryTimeout = 10 * time.Second

// describedStatus answers status from the server alone when the workflow
// did not answer its query (queryErr): the phase it listed, its execution's
// state, its pending activity. The query's error stands when the server
// cannot describe it either.
func describedStatus(ctx context.Context, c *client.Client, out *printer, wid string, queryErr error) error {
	d, err := c.Describe(ctx, wid)
	if err != nil {
		return fmt.Errorf("%w (and describing it: %w)", queryErr, err)
	}
	fmt.Fprintf(out.progress, "finalizer: the workflow did not answer its status query (is a worker polling %s?): %v; what the server knows follows\n",
		c.TaskQueue(), queryErr)
	return out.result(describedOutput{Described: d}, describedText(d))
}

// describedOutput is status's answer from the server alone; Answered
// (false) tells it apart from the workflow's own.
type describedOutput struct {
	client.Described
	Answered bool `json:"answered"`
}

// statusOutput is the status answer as --json prints it: its timings as
// duration strings ("1.5s"), as every duration the tool prints, where the
// query answers nanoseconds; the activities it waits for; and as its last
// error the pending activity's last failure, which is newer than the
// workflow's own (the workflow learns of a failure only once its activity
// gives up retrying).
type statusOutput struct {
	contract.Status
	Timings           map[contract.Phase]string `json:"timings"`
	PendingActivities []client.PendingActivity  `json:"pendingActivities,omitempty"`
	// Answered: the workflow answered (see describedOutput).
	Answered bool `json:"answered"`
}

func statusJSON(st contract.Status, pending []client.PendingActivity) statusOutput {
	o := statusOutput{Status: st, Timings: make(map[contract.Phase]string, len(st.Timings)), PendingActivities: pending, Answered: true}
	for p, d := range st.Timings {
		o.Timings[p] = d.String()
	}
	for _, p := range pending {
		if p.LastFailure != "" {
			o.LastError = p.LastFailure
			break
		}
	}
	return o
}
