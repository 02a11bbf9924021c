package blobstate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"gocloud.dev/gcerrors"
)

// CheckData verifies that the state a handle points at exists: its
// metadata file is present (else ErrDataMissing) and has the recorded
// SHA-256 (else ErrDataCorrupt). Any other error is an I/O failure that
// says nothing about the data. The metadata file is streamed, not buffered.
func (s *Store) CheckData(ctx context.Context, h Handle) error {
	if err := h.Validate(); err != nil {
		return fmt.Errorf("check data of checkpoint %d: %w", h.Checkpoint, err)
	}
	r, err := s.bucket.NewReader(ctx, h.MetadataKey, nil)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return fmt.Errorf("check data of checkpoint %d: metadata %s: %w", h.Checkpoint, h.MetadataKey, ErrDataMissing)
	}
	if err != nil {
		return fmt.Errorf("check data of checkpoint %d: open metadata %s: %w", h.Checkpoint, h.MetadataKey, s.scrub(err))
	}
	sum := sha256.New()
	// Hide the reader's WriteTo: gocloud's allocates a 1 MiB buffer per
	// call, which a persist and every restore point would pay.
	_, err = io.CopyBuffer(sum, struct{ io.Reader }{r}, make([]byte, 32<<10))
	if cerr := r.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("check data of checkpoint %d: read metadata %s: %w", h.Checkpoint, h.MetadataKey, s.scrub(err))
	}
	// The message names only the digest the caller gave: the object's own
	// would let a request learn the checksum of anything it can name, and
	// resubmit with it.
	if hex.EncodeToString(sum.Sum(nil)) != h.MetadataSHA256 {
		return fmt.Errorf("check data of checkpoint %d: metadata %s does not have the SHA-256 the handle records (%s): %w",
			h.Checkpoint, h.MetadataKey, h.MetadataSHA256, ErrDataCorrupt)
	}
	return nil
}
