package blobstate

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// ErrBucketInaccessible: the bucket answered that it does not exist (a
// file:// bucket's directory gone, say).
var ErrBucketInaccessible = errors.New("bucket does not exist")

// Probe answers whether the bucket can serve now: nil, or why not. It is
// readiness's question (a finalization cannot persist or discard without
// the bucket), asked on every probe, so it reads no more than the first
// object of one listing.
func (s *Store) Probe(ctx context.Context) error {
	if s.root != "" {
		// fileblob lists a missing directory as an empty bucket.
		fi, err := os.Stat(s.root)
		if errors.Is(err, os.ErrNotExist) || err == nil && !fi.IsDir() {
			return fmt.Errorf("bucket %s: %w", s.base, ErrBucketInaccessible)
		}
		if err != nil {
			return fmt.Errorf("bucket %s: %w", s.base, err)
		}
	}
	ok, err := s.bucket.IsAccessible(ctx)
	if err != nil {
		return fmt.Errorf("bucket %s: %w", s.base, s.scrub(err))
	}
	if !ok {
		return fmt.Errorf("bucket %s: %w", s.base, ErrBucketInaccessible)
	}
	return nil
}
