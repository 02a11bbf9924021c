package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
)

// finalizeOutput is finalize's JSON output; Result only with --wait.
type finalizeOutput struct {
	WorkflowID  string                   `json:"workflowId"`
	RunID       string                   `json:"runId"`
	ContentHash string                   `json:"contentHash"`
	Result      *contract.FinalizeResult `json:"result,omitempty"`
}

func finalizeCommand(a *app) *cobra.Command {
	var (
		id       identity
		req      contract.FinalizeRequest
		attempts uint
		wait     bool
		interval time.Duration
	)
	cmd := &cobra.Command{
		Use:     "finalize",
		Short:   "trigger a checkpoint's finalization (idempotent); --wait for its outcome",
		Example: "  finalizer finalize --cluster prod-eu --job 0a1b2c3d4e5f60718293a4b5c6d7e8f9 --epoch 4 --owner jm-4 --checkpoint 42 --metadata-key prod-eu/0a1b2c3d4e5f60718293a4b5c6d7e8f9/chk-42/_metadata --metadata-sha256 <64 hex> --exclusive-prefix prod-eu/0a1b2c3d4e5f60718293a4b5c6d7e8f9/chk-42/ --wait",
	}
	fs := cmd.Flags()
	id.register(fs, true)
	fs.StringVar(&req.Owner, "owner", "", "the epoch's claimant, as the claim named it")
	fs.StringVar(&req.MetadataKey, "metadata-key", "", "bucket key of the checkpoint's metadata file")
	fs.StringVar(&req.MetadataSHA256, "metadata-sha256", "", "hex SHA-256 of the metadata file")
	fs.StringVar(&req.ExclusivePrefix, "exclusive-prefix", "", "bucket prefix of the data only this checkpoint owns (\".../chk-<id>/\"); required unless --savepoint")
	fs.BoolVar(&req.Savepoint, "savepoint", false, "a savepoint: its data is never discarded")
	fs.UintVar(&attempts, "max-attempts", 0, fmt.Sprintf("publish attempts before a fenced absent discards (0: %d)", contract.DefaultMaxPublishAttempts))
	fs.BoolVar(&wait, "wait", false, "wait for the outcome, showing progress on stderr; exit 0 only if Published")
	fs.DurationVar(&interval, "progress-interval", client.DefaultProgressInterval, "how often --wait polls the status")
	check := func() error {
		if attempts > 1<<32-1 {
			return usagef("--max-attempts %d is out of range", attempts)
		}
		if interval <= 0 {
			return usagef("--progress-interval must be positive, got %s", interval)
		}
		req.Cluster, req.Job, req.Epoch, req.Checkpoint = id.cluster, id.job, id.epoch, id.checkpoint
		req.MaxPublishAttempts = uint32(attempts)
		if err := req.Validate(); err != nil {
			return invalid(err)
		}
		return nil
	}
	// Not --exclusive-prefix: a savepoint may leave it out, and for a
	// checkpoint the contract's own validation refuses it missing.
	required := []string{"cluster", "job", "epoch", "owner", "checkpoint", "metadata-key", "metadata-sha256"}
	return a.connected(cmd, required, check, func(ctx context.Context, c *client.Client, out *printer) error {
		f, err := c.Finalize(ctx, req)
		if err != nil {
			return err
		}
		o := finalizeOutput{WorkflowID: f.WorkflowID, RunID: f.RunID, ContentHash: req.ContentHash()}
		if !wait {
			return out.result(o, fmt.Sprintf("%s run %s (content %s)", f.WorkflowID, f.RunID, o.ContentHash))
		}
		res, err := f.WaitProgress(ctx, interval, func(st contract.Status) { out.status(f.WorkflowID, st) })
		if err != nil {
			return err
		}
		o.Result = &res
		if err := out.result(o, resultText(f.WorkflowID, res)); err != nil {
			return err
		}
		if res.Phase != contract.Published {
			return errNotPublished
		}
		return nil
	})
}
