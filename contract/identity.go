package contract

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Token is the token a finalization publishes its reference with, derived
// from its identity (its workflow ID), so that whoever holds a handle knows
// which token's reference may point at it.
func Token(id stores.CheckpointID, epoch uint64) string {
	sum := sha256.Sum256([]byte(FinalizationID(id, epoch)))
	return hex.EncodeToString(sum[:16])
}

// FinalizationID is the workflow ID of a checkpoint's finalization. Names
// are DNS-1123 labels, so '/' cannot be ambiguous.
func FinalizationID(id stores.CheckpointID, epoch uint64) string {
	return fmt.Sprintf("finalize/%s/%s/%d/%d", id.Cluster, id.Job, epoch, id.Checkpoint)
}

// workflowKinds are the first segments of the contract's workflow IDs,
// each "<kind>/<cluster>/<job>/...".
var workflowKinds = []string{"finalize", "coordinator", "subsume", "claim", "retire", "latest"}

// WorkflowCluster is the cluster a workflow ID of the contract names, ""
// when the ID is not one of the contract's.
func WorkflowCluster(id string) string {
	parts := strings.SplitN(id, "/", 4)
	if len(parts) < 3 || !slices.Contains(workflowKinds, parts[0]) || stores.ValidateCluster(parts[1]) != nil {
		return ""
	}
	return parts[1]
}
