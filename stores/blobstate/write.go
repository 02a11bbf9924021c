package blobstate

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"gocloud.dev/blob"
)

// Write stores the handle under h.Key() and returns that key, the value a
// reference in the HA store points at. Nothing is written for an invalid
// handle. Writing the same handle again rewrites the same bytes (and, on a
// local bucket, fsyncs them again), so a retried activity that crashed
// before its fsync still ends durable. A different valid handle already
// under the key is stores.ErrHandleConflict and stays untouched; a corrupt blob there is
// replaced, since nothing could have been resolved from it.
//
// The check for a different handle is a read before the write, not an
// atomic condition: the finalizer's workflow identity already ensures one
// writer per key, and the check catches a caller that reuses an identity
// with other content.
func (s *Store) Write(ctx context.Context, h Handle) (string, error) {
	b, err := EncodeEnvelope(h)
	if err != nil {
		return "", fmt.Errorf("write handle of checkpoint %d: %w", h.Checkpoint, err)
	}
	key := h.Key()
	if err := s.checkReplace(ctx, key, h, b); err != nil {
		return "", fmt.Errorf("write handle of checkpoint %d: %w", h.Checkpoint, err)
	}
	err = s.bucket.WriteAll(ctx, key, b, &blob.WriterOptions{ContentType: "application/json"})
	if err != nil {
		return "", fmt.Errorf("write handle of checkpoint %d to %s: %w", h.Checkpoint, key, s.scrub(err))
	}
	if err := s.syncLocal(key); err != nil {
		return "", fmt.Errorf("write handle of checkpoint %d: %w", h.Checkpoint, err)
	}
	return key, nil
}

// checkReplace refuses to overwrite a different valid handle.
func (s *Store) checkReplace(ctx context.Context, key string, h Handle, b []byte) error {
	cur, raw, err := s.read(ctx, key)
	switch {
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrCorrupt):
		return nil
	case err != nil:
		return err
	case !bytes.Equal(raw, b):
		return fmt.Errorf("%s holds metadata %s (%s), prefix %q, savepoint %t: %w",
			key, cur.MetadataKey, cur.MetadataSHA256, cur.ExclusivePrefix, cur.Savepoint, stores.ErrHandleConflict)
	}
	return nil
}
