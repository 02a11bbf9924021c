package bench

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/api/workflowservice/v1"
)

// drain waits, bounded by twice the finalization timeout, until no
// workflow of the measured run still runs: a run that overloaded the
// worker leaves executions behind once their triggers timed out, and they
// must not load the next run. Leftovers past the bound are reported, not
// fatal.
func (sr *storeRun) drain(ctx context.Context, path Path, prefix string) error {
	if path == Direct {
		return nil
	}
	id := fmt.Sprintf("finalize/%s/%s-", sr.cluster, prefix)
	if path == Naive || path == Floor {
		id = string(path) + "/" + id
	}
	query := fmt.Sprintf(`ExecutionStatus = "Running" AND WorkflowId STARTS_WITH %q`, id)
	start := time.Now()
	deadline := start.Add(2 * sr.cfg.Timeout)
	for {
		resp, err := sr.ready.Client.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Query: query})
		if err != nil {
			return fmt.Errorf("drain (%s): %w", query, err)
		}
		left := resp.GetCount()
		if left == 0 {
			if waited := time.Since(start); waited > time.Second {
				fmt.Fprintf(sr.cfg.Progress, "%s %s: drained leftovers in %s\n", sr.kind, prefix, waited.Round(time.Second))
			}
			return nil
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(sr.cfg.Progress, "%s %s: %d executions still running after %s; going on\n", sr.kind, prefix, left, time.Since(start).Round(time.Second))
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}
