package blobstate

import (
	"fmt"
	"strings"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Handle is a checkpoint's state handle: where its state lives and how to
// recognise it. It never carries state bytes.
type Handle struct {
	stores.CheckpointID
	// Epoch is the leadership incarnation of the job manager that took the
	// checkpoint; it is part of the identity and of the key.
	Epoch uint64 `json:"epoch"`
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
	return fmt.Sprintf("%s epoch %d metadata %s (sha256 %s) exclusive %q savepoint %t",
		h.CheckpointID, h.Epoch, h.MetadataKey, h.MetadataSHA256, h.ExclusivePrefix, h.Savepoint)
}

// Key returns the key of the handle's blob; see Key.
func (h Handle) Key() string { return Key(h.CheckpointID, h.Epoch) }

// Validate checks every field; see the package documentation for why each
// rule keeps a deletion safe. A non-nil error is a *stores.InvalidError.
func (h Handle) Validate() error {
	if err := stores.ValidateIdentity(h.CheckpointID, h.Epoch); err != nil {
		return err
	}
	if err := validateObjectKey("metadataKey", h.MetadataKey, false); err != nil {
		return err
	}
	if err := validateSHA256("metadataSha256", h.MetadataSHA256); err != nil {
		return err
	}
	if h.Savepoint && h.ExclusivePrefix == "" {
		return nil
	}
	if err := validateObjectKey("exclusivePrefix", h.ExclusivePrefix, true); err != nil {
		return err
	}
	if h.Savepoint {
		return nil
	}
	// The prefix must be this checkpoint's own directory: a prefix naming a
	// job, a shared directory or another checkpoint is refused here, before
	// it can reach Discard.
	want := fmt.Sprintf("chk-%d/", h.Checkpoint)
	if h.ExclusivePrefix != want && !strings.HasSuffix(h.ExclusivePrefix, "/"+want) {
		return &stores.InvalidError{Field: "exclusivePrefix", Rule: fmt.Sprintf("%q: must end with %q, the directory of checkpoint %d", h.ExclusivePrefix, want, h.Checkpoint)}
	}
	// The metadata file is part of the checkpoint's exclusive state; outside
	// the prefix it would leak on Discard.
	if !strings.HasPrefix(h.MetadataKey, h.ExclusivePrefix) {
		return &stores.InvalidError{Field: "metadataKey", Rule: fmt.Sprintf("%q: must be under the exclusive prefix %q", h.MetadataKey, h.ExclusivePrefix)}
	}
	return nil
}

// validateSHA256 checks a SHA-256 in the one spelling this package writes:
// 64 lowercase hex digits, so that comparing strings compares checksums.
func validateSHA256(field, s string) error {
	if len(s) != 64 {
		return &stores.InvalidError{Field: field, Rule: fmt.Sprintf("must be 64 lowercase hex digits, got %d characters", len(s))}
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return &stores.InvalidError{Field: field, Rule: fmt.Sprintf("must be 64 lowercase hex digits, found %q at %d", c, i)}
		}
	}
	return nil
}
