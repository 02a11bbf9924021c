package invariants

import (
	"context"
	"errors"
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// ReferenceProblem looks up what a published reference points at: its
// handle blob, the handle's metadata (checksum included), its data file
// and, unless shared is empty, the job's shared file. It says what is
// missing, "" when everything is there; an error is a lookup that failed
// and says nothing about the state.
func (j *Judge) ReferenceProblem(ctx context.Context, e stores.Entry, shared string) (string, error) {
	h, err := j.States.ReadKey(ctx, e.Reference.Handle)
	switch {
	case errors.Is(err, blobstate.ErrNotFound), errors.Is(err, blobstate.ErrCorrupt), errors.Is(err, stores.ErrInvalid):
		return fmt.Sprintf("which does not resolve: %v", err), nil
	case err != nil:
		return "", err
	}
	err = j.States.CheckData(ctx, h)
	switch {
	case errors.Is(err, blobstate.ErrDataMissing), errors.Is(err, blobstate.ErrDataCorrupt):
		return fmt.Sprintf("whose metadata is not there: %v", err), nil
	case err != nil:
		return "", err
	}
	files := []string{h.ExclusivePrefix + "data-0"}
	if shared != "" {
		files = append(files, shared)
	}
	for _, key := range files {
		ok, err := BucketHas(ctx, j.Bucket, key)
		if err != nil {
			return "", err
		}
		if !ok {
			return fmt.Sprintf("whose file %s is missing", key), nil
		}
	}
	return "", nil
}

// StillPublished reads the key of a reference found with a problem again:
// true when it still holds the same token, so that the reference stood
// from the listing to now, the lookup in between included (a token's
// reference, once removed, never comes back).
func StillPublished(ctx context.Context, store stores.ReferenceStore, e stores.Entry, job stores.JobID) (bool, error) {
	cur, err := store.Read(ctx, stores.CheckpointID{JobID: job, Checkpoint: e.Checkpoint})
	if err != nil {
		return false, err
	}
	return cur.HoldsToken(e.Reference.Token), nil
}
