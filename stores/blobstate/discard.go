package blobstate

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// deleteConcurrency bounds the deletes in flight during one Discard.
const deleteConcurrency = 8

// DiscardResult says what a Discard did.
type DiscardResult struct {
	// DeletedObjects counts the data objects this call deleted; objects a
	// previous call already deleted are not counted.
	DeletedObjects int
	// DataKept is true for a savepoint: only its handle blob was deleted.
	DataKept bool
}

// Discard deletes the checkpoint's exclusive data, then its handle blob.
// What is already gone counts as deleted: Discard is idempotent and a
// second call succeeds. Nothing outside h.ExclusivePrefix is touched. For a
// savepoint only the handle blob is deleted and the data is kept
// (DataKept). If the key holds a different valid handle, Discard refuses
// with stores.ErrHandleConflict and deletes nothing: the caller's pointers are not the
// ones stored.
func (s *Store) Discard(ctx context.Context, h Handle) (DiscardResult, error) {
	if err := h.Validate(); err != nil {
		return DiscardResult{}, fmt.Errorf("discard checkpoint %d: %w", h.Checkpoint, err)
	}
	if err := ctx.Err(); err != nil {
		return DiscardResult{}, fmt.Errorf("discard checkpoint %d: %w", h.Checkpoint, err)
	}
	key := h.Key()
	cur, _, err := s.read(ctx, key)
	switch {
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrCorrupt):
		// Gone already (a repeated Discard), or unreadable: the caller's
		// handle is the authority on what to delete.
	case err != nil:
		return DiscardResult{}, fmt.Errorf("discard checkpoint %d: %w", h.Checkpoint, err)
	case cur != h:
		return DiscardResult{}, fmt.Errorf("discard checkpoint %d: %s holds prefix %q, metadata %s, savepoint %t: %w",
			h.Checkpoint, key, cur.ExclusivePrefix, cur.MetadataKey, cur.Savepoint, stores.ErrHandleConflict)
	}
	var res DiscardResult
	if h.Savepoint {
		res.DataKept = true
	} else {
		n, err := s.deletePrefix(ctx, h.ExclusivePrefix)
		res.DeletedObjects = n
		if err != nil {
			return res, fmt.Errorf("discard checkpoint %d: %w", h.Checkpoint, err)
		}
	}
	if err := s.deleteIfExists(ctx, key); err != nil {
		return res, fmt.Errorf("discard checkpoint %d: handle: %w", h.Checkpoint, err)
	}
	return res, nil
}

// deletePrefix deletes every object under prefix, listing from the start
// until a listing comes back empty, so that no page token survives the
// deletions it spans.
func (s *Store) deletePrefix(ctx context.Context, prefix string) (int, error) {
	total := 0
	for {
		objs, _, err := s.bucket.ListPage(ctx, blob.FirstPageToken, s.listPageSize, &blob.ListOptions{Prefix: prefix})
		if err != nil {
			return total, fmt.Errorf("list %s: %w", prefix, s.scrub(err))
		}
		var keys []string
		for _, o := range objs {
			if !o.IsDir {
				keys = append(keys, o.Key)
			}
		}
		if len(keys) == 0 {
			break
		}
		n, err := s.deleteAll(ctx, keys)
		total += n
		if err != nil {
			return total, err
		}
		if n == 0 {
			// Every listed object was already gone, yet the listing shows
			// them: looping again would never end.
			return total, fmt.Errorf("list %s still shows %d deleted objects (first %s)", prefix, len(keys), keys[0])
		}
	}
	if err := s.removeEmptyDirs(prefix); err != nil {
		return total, err
	}
	return total, nil
}

// deleteAll deletes keys with bounded concurrency and returns how many it
// deleted (not counting those already gone) and the first error.
func (s *Store) deleteAll(ctx context.Context, keys []string) (int, error) {
	var (
		mu       sync.Mutex
		deleted  int
		firstErr error
		wg       sync.WaitGroup
		sem      = make(chan struct{}, deleteConcurrency)
	)
	for _, k := range keys {
		// Some drivers (fileblob, memblob) ignore a cancelled context:
		// stop deleting once the caller has given up.
		if err := ctx.Err(); err != nil {
			mu.Lock()
			if firstErr == nil {
				firstErr = fmt.Errorf("delete %s: %w", k, err)
			}
			mu.Unlock()
			break
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			err := s.bucket.Delete(ctx, k)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				deleted++
			case gcerrors.Code(err) == gcerrors.NotFound:
			case firstErr == nil:
				firstErr = fmt.Errorf("delete %s: %w", k, s.scrub(err))
			}
		})
	}
	wg.Wait()
	return deleted, firstErr
}

// deleteIfExists deletes key; a key already gone is success.
func (s *Store) deleteIfExists(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("delete %s: %w", key, err)
	}
	err := s.bucket.Delete(ctx, key)
	if err == nil || gcerrors.Code(err) == gcerrors.NotFound {
		return nil
	}
	return fmt.Errorf("delete %s: %w", key, s.scrub(err))
}
