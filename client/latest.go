package client

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// LatestCheckpoint reads the job's restore point without claiming
// anything, for tools and operators; a job manager recovering after a
// failover uses the answer of ClaimEpoch instead, which no older epoch can
// publish behind. The read is linearizable: it reflects every finalization
// that was Published before the call. A read that closed without an
// answer (terminated, say) is an *EndedError matching ErrEnded.
func (c *Client) LatestCheckpoint(ctx context.Context, job stores.JobID) (contract.RestorePoint, error) {
	if err := job.Validate(); err != nil {
		return contract.RestorePoint{}, invalidRequest("latest checkpoint", err)
	}
	req := contract.LatestRequest{Cluster: job.Cluster, Job: job.Job}
	nonce := make([]byte, 8)
	if _, err := rand.Read(nonce); err != nil {
		return contract.RestorePoint{}, fmt.Errorf("latest checkpoint: %w", err)
	}
	id := req.WorkflowID(hex.EncodeToString(nonce))
	run, err := c.tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       id,
		TaskQueue:                c.taskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
	}, contract.LatestWorkflow, req)
	if err != nil {
		return contract.RestorePoint{}, fmt.Errorf("latest checkpoint: start %s: %w", id, err)
	}
	var rp contract.RestorePoint
	if err := run.Get(ctx, &rp); err != nil {
		return contract.RestorePoint{}, fmt.Errorf("latest checkpoint: %w", waitError(id, err))
	}
	return rp, nil
}
