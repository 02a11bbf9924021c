package faultharness

import (
	"context"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// stateAtRest is what the bucket holds of one checkpoint: its handle blob
// and its files.
type stateAtRest struct {
	id      stores.CheckpointID
	handles []string // handle blob keys (one per epoch that persisted it)
	files   []string // files under the checkpoint's exclusive prefix
}

// scanBucket lists every checkpoint the bucket holds any state of.
func (r *run) scanBucket(ctx context.Context) (map[stores.CheckpointID]*stateAtRest, error) {
	return r.w.blob.scan(ctx)
}
