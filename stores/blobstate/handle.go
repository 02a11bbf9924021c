package blobstate

import (
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Handle is a checkpoint's state handle: where its state lives and how to
// recognise it. It never carries state bytes.
type Handle struct {
	stores.CheckpointID
	// Epoch is the leadership incarnation of the job manager that took the
	// checkpoint; it is part of the identity and of the key.
	Epoch uint64 `json:"epoch"`
	// Owner is the claimant of Epoch that requested the checkpoint: the
	// delete guard lets only the standing claim decide its directory.
	// Handles written before requests named their owner have none.
	Owner string `json:"owner,omitempty"`
	// MetadataKey is the bucket key of the checkpoint's metadata file,
	// written by the job manager (Flink: "<...>/<job>/chk-<id>/_metadata").
	MetadataKey string `json:"metadataKey"`
	// MetadataSHA256 is the lowercase hex SHA-256 of the metadata file.
	MetadataSHA256 string `json:"metadataSha256"`
	// ExclusivePrefix holds the files only this checkpoint owns
	// (Flink: "<...>/<job>/chk-<id>/"); Discard deletes everything under it.
	// Optional for a savepoint, whose data Discard never deletes.
	ExclusivePrefix string `json:"exclusivePrefix,omitempty"`
	// Savepoint marks state that belongs to the operator: never discarded.
	Savepoint bool `json:"savepoint,omitempty"`
}

// String shows every field: the embedded CheckpointID's String would
// otherwise stand for the whole handle in logs.
func (h Handle) String() string {
	return fmt.Sprintf("%s epoch %d owner %q metadata %s (sha256 %s) exclusive %q savepoint %t",
		h.CheckpointID, h.Epoch, h.Owner, h.MetadataKey, h.MetadataSHA256, h.ExclusivePrefix, h.Savepoint)
}

// Key returns the key of the handle's blob; see Key.
func (h Handle) Key() string { return Key(h.CheckpointID, h.Epoch) }

// Validate checks every field; see the package documentation for why each
// rule keeps a deletion safe. A non-nil error is a *stores.InvalidError.
func (h Handle) Validate() error {
	if err := stores.ValidateStateHandle(h.CheckpointID, h.Epoch, h.MetadataKey, h.MetadataSHA256, h.ExclusivePrefix, h.Savepoint); err != nil {
		return err
	}
	if h.Owner == "" {
		return nil
	}
	return stores.ValidateOwner(h.Owner)
}
