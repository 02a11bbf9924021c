package activities_test

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// discardCounter is a bucket that holds some handles and only counts the
// guard's deletes.
type discardCounter struct {
	handles  map[string]blobstate.Handle
	marked   map[string]bool
	discards int
}

func (d *discardCounter) ReadKey(_ context.Context, key string) (blobstate.Handle, error) {
	if h, ok := d.handles[key]; ok {
		return h, nil
	}
	return blobstate.Handle{}, blobstate.ErrNotFound
}

func (d *discardCounter) Mark(_ context.Context, key string) (blobstate.KeepMark, bool, error) {
	return blobstate.KeepMark{HandleKey: key, Reason: "kept for forensics"}, d.marked[key], nil
}

func (d *discardCounter) ListJobHandles(_ context.Context, job stores.JobID) (blobstate.Listing, error) {
	var l blobstate.Listing
	for _, key := range slices.Sorted(maps.Keys(d.handles)) {
		if h := d.handles[key]; h.JobID == job {
			l.Handles = append(l.Handles, blobstate.HandleInfo{Key: key, CheckpointID: h.CheckpointID, Epoch: h.Epoch})
		}
	}
	return l, nil
}

func (d *discardCounter) Discard(context.Context, blobstate.Handle) (blobstate.DiscardResult, error) {
	d.discards++
	return blobstate.DiscardResult{DeletedObjects: 1}, nil
}

// The guard deletes a handle's state only when the key, read after its
// fence, shows that no reference points into the checkpoint's directory
// and none can land there: a tombstone of the handle's own token, or of no
// token, that is not a kept record. Everything else keeps the state and
// says why, naming what holds the key.
func TestGuardDiscardDecidesOnTheKeyAfterItsFence(t *testing.T) {
	const mine, other = "tok-mine", "tok-other"
	since := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ref := func(token string) stores.Entry {
		return stores.Entry{Checkpoint: 5, Reference: &stores.Reference{Handle: "h", Token: token, Attempt: 1}}
	}
	tomb := func(token string, reason stores.Reason) stores.Entry {
		return stores.Entry{Checkpoint: 5, Tombstone: &stores.Tombstone{Token: token, FencedUpTo: activities.FenceAll, Reason: reason, Since: since}}
	}
	cases := []struct {
		name        string
		entry       stores.Entry
		notStanding string
		deleted     bool
		kept        string // a part of the reason the state stays
	}{
		{"its own fence", tomb(mine, stores.ReasonFenced), "", true, ""},
		{"its own subsumed reference", tomb(mine, stores.ReasonSubsumed), "", true, ""},
		{"its own retired reference", tomb(mine, stores.ReasonRetired), "", true, ""},
		{"a tombstone of no token", tomb("", stores.ReasonSubsumed), "", true, ""},
		{"not the standing claim's to decide", tomb(mine, stores.ReasonFenced), "epoch 1 is deposed", false, "epoch 1 is deposed"},
		{"its own reference stands", ref(mine), "", false, "its own reference stands"},
		{"another token's reference", ref(other), "", false, `live reference of token "tok-other"`},
		{"its own retained record", tomb(mine, stores.ReasonRetained), "", false, "until an operator releases it"},
		{"another token's savepoint record", tomb(other, stores.ReasonSavepoint), "", false, "until an operator releases it"},
		{"another token's fence", tomb(other, stores.ReasonFenced), "", false, `token "tok-other" may still publish checkpoint 5`},
		{"another token's subsumed reference", tomb(other, stores.ReasonSubsumed), "", false, `subsumed reference of token "tok-other", whose state may share the directory`},
		{"another token's quarantined reference", tomb(other, stores.ReasonQuarantined), "", false, `quarantined reference of token "tok-other", whose state may share the directory`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bucket := &discardCounter{}
			g := activities.Guard{States: bucket}
			res, err := g.Discard(t.Context(), &activities.Guarded{Token: mine, Entry: c.entry, NotStanding: c.notStanding})
			require.NoError(t, err)
			if c.deleted {
				assert.Equal(t, 1, bucket.discards)
				assert.Empty(t, res.Kept)
				return
			}
			assert.Zero(t, bucket.discards, "nothing deleted")
			assert.Contains(t, res.Kept, c.kept)
		})
	}

	// A key holding nothing right after its fence was collected in
	// between: nothing is deleted, and the retry fences it again.
	bucket := &discardCounter{}
	_, err := activities.Guard{States: bucket}.Discard(t.Context(), &activities.Guarded{Token: mine, Entry: stores.Entry{Checkpoint: 5}})
	assert.Error(t, err)
	assert.Zero(t, bucket.discards)
}

// An operator's keep mark keeps a handle's state whatever the key says.
// And a checkpoint ID is one job manager's within an incarnation, so
// another epoch's handle of the same checkpoint is a request replayed
// under another claim: when it declares a savepoint inside the directory
// or an operator keeps its state, the guard keeps the directory.
func TestGuardKeepsWhatAnOperatorOrASavepointKeeps(t *testing.T) {
	id := stores.CheckpointID{JobID: stores.JobID{Cluster: "c1", Job: "j1"}, Checkpoint: 3}
	dir := "flink/c1/checkpoints/j1/chk-3/"
	mine := blobstate.Handle{CheckpointID: id, Epoch: 2, MetadataKey: dir + "_metadata", ExclusivePrefix: dir}
	other := func(epoch uint64, savepoint bool, metadata string) blobstate.Handle {
		return blobstate.Handle{CheckpointID: id, Epoch: epoch, MetadataKey: metadata, ExclusivePrefix: dir, Savepoint: savepoint}
	}
	cases := []struct {
		name    string
		others  []blobstate.Handle
		marked  []string
		deleted bool
		kept    string
	}{
		{"no other handle", nil, nil, true, ""},
		{"its own state marked kept", nil, []string{mine.Key()}, false, "kept by an operator"},
		{"another epoch's abandoned checkpoint inside", []blobstate.Handle{other(1, false, dir+"_metadata")}, []string{blobstate.Key(id, 1)}, false, "kept by an operator"},
		{"another epoch's savepoint inside", []blobstate.Handle{other(1, true, dir+"_metadata")}, nil, false, "declares the savepoint"},
		{"another epoch's checkpoint inside", []blobstate.Handle{other(1, false, dir+"_metadata")}, nil, true, ""},
		{"a savepoint inside after another epoch's checkpoint", []blobstate.Handle{other(1, false, dir+"_metadata"), other(3, true, dir+"_metadata")}, nil, false, "declares the savepoint"},
		{"another epoch's savepoint elsewhere", []blobstate.Handle{other(1, true, "flink/c1/savepoints/j1/sp-1/_metadata")}, nil, true, ""},
		{"another checkpoint's savepoint", []blobstate.Handle{{CheckpointID: stores.CheckpointID{JobID: id.JobID, Checkpoint: 4}, Epoch: 1,
			MetadataKey: "flink/c1/checkpoints/j1/chk-4/_metadata", ExclusivePrefix: "flink/c1/checkpoints/j1/chk-4/", Savepoint: true}}, nil, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bucket := &discardCounter{handles: map[string]blobstate.Handle{mine.Key(): mine}, marked: map[string]bool{}}
			for _, h := range c.others {
				bucket.handles[h.Key()] = h
			}
			for _, k := range c.marked {
				bucket.marked[k] = true
			}
			token := contract.Token(id, mine.Epoch)
			res, err := activities.Guard{States: bucket}.Discard(t.Context(), &activities.Guarded{Handle: mine, Token: token,
				Entry: stores.Entry{Checkpoint: 3, Tombstone: &stores.Tombstone{Token: token, FencedUpTo: activities.FenceAll, Reason: stores.ReasonFenced}}})
			require.NoError(t, err)
			if c.deleted {
				assert.Equal(t, 1, bucket.discards)
				return
			}
			assert.Zero(t, bucket.discards, "nothing deleted")
			assert.Contains(t, res.Kept, c.kept)
		})
	}
}
