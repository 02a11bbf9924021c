package activities

import (
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// HandleOf is the state handle a finalization request describes: what
// PersistHandle checks and writes. It is here rather than a method of the
// request so that the contract, which a job manager links, stays free of
// the bucket's code.
func HandleOf(r contract.FinalizeRequest) blobstate.Handle {
	return blobstate.Handle{
		CheckpointID: r.CheckpointID(), Epoch: r.Epoch, Owner: r.Owner,
		MetadataKey: r.MetadataKey, MetadataSHA256: r.MetadataSHA256,
		ExclusivePrefix: r.ExclusivePrefix, Savepoint: r.Savepoint,
	}
}

// HandleKey is the bucket key of a handle blob, as a discard names it.
type HandleKey string

// Clusters is the cluster the key's handle belongs to, none when the key
// is not a handle's (the worker's tenant gate refuses it).
func (k HandleKey) Clusters() []string {
	id, _, err := blobstate.ParseKey(string(k))
	if err != nil {
		return nil
	}
	return id.Clusters()
}
