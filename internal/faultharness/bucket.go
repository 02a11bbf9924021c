package faultharness

import (
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

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

// scanBucket lists every checkpoint the bucket holds any state of, read
// from the directory itself: what is really there, not what anyone says.
func (r *run) scanBucket() (map[stores.CheckpointID]*stateAtRest, error) {
	out := map[stores.CheckpointID]*stateAtRest{}
	at := func(id stores.CheckpointID) *stateAtRest {
		if out[id] == nil {
			out[id] = &stateAtRest{id: id}
		}
		return out[id]
	}
	root := r.w.bucket.Dir
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".attrs") {
			return err
		}
		key, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		key = filepath.ToSlash(key)
		if strings.HasPrefix(key, blobstate.HandlesPrefix) {
			if id, _, err := blobstate.ParseKey(key); err == nil {
				s := at(id)
				s.handles = append(s.handles, key)
			}
			return nil
		}
		// <cluster>/<job>/chk-<n>/<file>; shared files are not a checkpoint's.
		parts := strings.Split(key, "/")
		if len(parts) != 4 || !strings.HasPrefix(parts[2], "chk-") {
			return nil
		}
		n, err := strconv.ParseUint(strings.TrimPrefix(parts[2], "chk-"), 10, 64)
		if err != nil {
			return nil
		}
		s := at(stores.CheckpointID{JobID: stores.JobID{Cluster: parts[0], Job: parts[1]}, Checkpoint: n})
		s.files = append(s.files, key)
		return nil
	})
	return out, err
}
