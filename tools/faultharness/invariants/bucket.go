package invariants

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// stateAtRest is what the bucket holds of one checkpoint: its handle blob
// and its files.
type stateAtRest struct {
	id      stores.CheckpointID
	handles []string // handle blob keys (one per epoch that persisted it)
	files   []string // files under the checkpoint's exclusive prefix
}

// BucketHas reports whether the bucket holds key.
func BucketHas(ctx context.Context, b *blob.Bucket, key string) (bool, error) {
	ok, err := b.Exists(ctx, key)
	if err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return false, fmt.Errorf("stat %s: %w", key, err)
	}
	return ok, nil
}

// scanBucket lists every checkpoint the bucket holds any state of, read
// through the bucket's own listing: what is really there, not what anyone
// says.
func scanBucket(ctx context.Context, b *blob.Bucket) (map[stores.CheckpointID]*stateAtRest, error) {
	out := map[stores.CheckpointID]*stateAtRest{}
	at := func(id stores.CheckpointID) *stateAtRest {
		if out[id] == nil {
			out[id] = &stateAtRest{id: id}
		}
		return out[id]
	}
	it := b.List(nil)
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("list the state bucket: %w", err)
		}
		key := obj.Key
		if strings.HasPrefix(key, stores.HandlesPrefix) {
			if id, _, err := blobstate.ParseKey(key); err == nil {
				s := at(id)
				s.handles = append(s.handles, key)
			}
			continue
		}
		// <cluster>/<job>/chk-<n>/<file>; shared files are not a checkpoint's.
		parts := strings.Split(key, "/")
		if len(parts) != 4 || !strings.HasPrefix(parts[2], "chk-") {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimPrefix(parts[2], "chk-"), 10, 64)
		if err != nil {
			continue
		}
		s := at(stores.CheckpointID{JobID: stores.JobID{Cluster: parts[0], Job: parts[1]}, Checkpoint: n})
		s.files = append(s.files, key)
	}
}
