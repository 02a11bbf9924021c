package contract

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

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
