package blobstate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// runConformance holds a backend to the package contract. open returns a
// store over a fresh, empty bucket. Every backend runs the same cases, so
// fileblob and S3 prove the same behaviour.
func runConformance(t *testing.T, open func(t *testing.T) *Store) {
	ctx := context.Background()

	t.Run("WriteThenRead", func(t *testing.T) {
		s := open(t)
		h := seedCheckpoint(t, s, "orders", 2, 7, 3)
		key, err := s.Write(ctx, h)
		require.NoError(t, err)
		assert.Equal(t, "handles/prod-eu/orders/00000000000000000002/00000000000000000007.json", key)

		got, err := s.Read(ctx, h.CheckpointID, h.Epoch)
		require.NoError(t, err)
		assert.Equal(t, h, got)
		got, err = s.ReadKey(ctx, key)
		require.NoError(t, err)
		assert.Equal(t, h, got)
		require.NoError(t, s.CheckData(ctx, h))
	})

	t.Run("WriteIsIdempotent", func(t *testing.T) {
		s := open(t)
		h := seedCheckpoint(t, s, "orders", 1, 1, 1)
		key1, err := s.Write(ctx, h)
		require.NoError(t, err)
		first := get(t, s, key1)
		key2, err := s.Write(ctx, h)
		require.NoError(t, err)
		assert.Equal(t, key1, key2, "a retried write lands on the same key")
		assert.Equal(t, first, get(t, s, key2), "and writes the same bytes")
		assert.Len(t, keys(t, s, stores.HandlesPrefix), 1)
	})

	t.Run("EpochIsPartOfTheIdentity", func(t *testing.T) {
		s := open(t)
		h1 := seedCheckpoint(t, s, "orders", 1, 5, 1)
		h2 := h1
		h2.Epoch = 2
		k1, err := s.Write(ctx, h1)
		require.NoError(t, err)
		k2, err := s.Write(ctx, h2)
		require.NoError(t, err)
		assert.NotEqual(t, k1, k2)
		got, err := s.Read(ctx, h1.CheckpointID, 1)
		require.NoError(t, err)
		assert.Equal(t, h1, got)
	})

	t.Run("WriteRefusesADifferentHandle", func(t *testing.T) {
		s := open(t)
		h := seedCheckpoint(t, s, "orders", 1, 9, 1)
		key, err := s.Write(ctx, h)
		require.NoError(t, err)
		before := get(t, s, key)

		other := h
		other.MetadataSHA256 = sha([]byte("other content"))
		_, err = s.Write(ctx, other)
		require.ErrorIs(t, err, stores.ErrHandleConflict)
		assert.Equal(t, before, get(t, s, key), "the stored handle is untouched")
	})

	t.Run("ReadMissingIsNotFound", func(t *testing.T) {
		s := open(t)
		_, err := s.Read(ctx, ckpt("orders", 1), 1)
		require.ErrorIs(t, err, ErrNotFound)
		assert.NotErrorIs(t, err, ErrCorrupt)
	})

	t.Run("TamperingIsDetected", func(t *testing.T) {
		s := open(t)
		h := seedCheckpoint(t, s, "orders", 1, 3, 1)
		key, err := s.Write(ctx, h)
		require.NoError(t, err)
		good := get(t, s, key)

		// Another handle's body under this envelope's checksum.
		forged := h
		forged.MetadataSHA256 = sha([]byte("forged"))
		forgedBytes, err := EncodeEnvelope(forged)
		require.NoError(t, err)
		mixed := bytes.Replace(forgedBytes, []byte(envelopeSum(t, forgedBytes)), []byte(envelopeSum(t, good)), 1)
		require.NotEqual(t, forgedBytes, mixed)

		cases := map[string][]byte{
			"body changed, checksum kept": mixed,
			"one byte flipped":            flip(good, len(good)/2),
			"truncated":                   good[:len(good)-10],
			"empty":                       {},
			"not JSON":                    []byte("PK\x03\x04 zip file"),
			"oversized":                   make([]byte, MaxEnvelopeSize+10),
		}
		for name, b := range cases {
			t.Run(name, func(t *testing.T) {
				put(t, s, key, b)
				_, err := s.Read(ctx, h.CheckpointID, h.Epoch)
				require.ErrorIs(t, err, ErrCorrupt)
			})
		}

		t.Run("valid handle of another checkpoint", func(t *testing.T) {
			other := seedCheckpoint(t, s, "orders", 1, 4, 0)
			b, err := EncodeEnvelope(other)
			require.NoError(t, err)
			put(t, s, key, b)
			_, err = s.Read(ctx, h.CheckpointID, h.Epoch)
			require.ErrorIs(t, err, ErrCorrupt)
		})

		t.Run("rewrite repairs", func(t *testing.T) {
			_, err := s.Write(ctx, h)
			require.NoError(t, err)
			got, err := s.Read(ctx, h.CheckpointID, h.Epoch)
			require.NoError(t, err)
			assert.Equal(t, h, got)
		})
	})

	t.Run("CheckData", func(t *testing.T) {
		s := open(t)
		h := seedCheckpoint(t, s, "orders", 1, 11, 0)
		require.NoError(t, s.CheckData(ctx, h))

		put(t, s, h.MetadataKey, []byte("rewritten by someone else"))
		err := s.CheckData(ctx, h)
		require.ErrorIs(t, err, ErrDataCorrupt)
		assert.NotErrorIs(t, err, ErrDataMissing)

		require.NoError(t, s.bucket.Delete(ctx, h.MetadataKey))
		err = s.CheckData(ctx, h)
		require.ErrorIs(t, err, ErrDataMissing)
		assert.NotErrorIs(t, err, ErrDataCorrupt)
	})

	t.Run("DiscardDeletesExclusiveDataOnly", func(t *testing.T) {
		s := open(t)
		s.listPageSize = 4 // several listing rounds
		h := seedCheckpoint(t, s, "orders", 1, 5, 10)
		// Neighbours that must survive: a checkpoint whose ID starts with the
		// same digits, Flink's shared and task-owned files, another job, a
		// savepoint, and another epoch's handle of the same checkpoint.
		neighbour := seedCheckpoint(t, s, "orders", 1, 50, 2)
		put(t, s, "flink/orders/shared/sst-0001", []byte("shared"))
		put(t, s, "flink/orders/taskowned/log-1", []byte("taskowned"))
		put(t, s, "flink/orders/chk-5.backup", []byte("sibling file"))
		otherJob := seedCheckpoint(t, s, "billing", 1, 5, 2)
		put(t, s, "savepoints/savepoint-ab12/_metadata", []byte("savepoint"))
		for _, x := range []Handle{h, neighbour, otherJob} {
			_, err := s.Write(ctx, x)
			require.NoError(t, err)
		}
		otherEpoch := h
		otherEpoch.Epoch = 2
		_, err := s.Write(ctx, otherEpoch)
		require.NoError(t, err)
		before := keys(t, s, "")

		res, err := s.Discard(ctx, h)
		require.NoError(t, err)
		assert.Equal(t, DiscardResult{DeletedObjects: 11}, res)

		assert.Empty(t, keys(t, s, h.ExclusivePrefix))
		_, err = s.Read(ctx, h.CheckpointID, h.Epoch)
		require.ErrorIs(t, err, ErrNotFound)
		require.ErrorIs(t, s.CheckData(ctx, h), ErrDataMissing)

		var want []string
		for _, k := range before {
			if k != h.Key() && !hasPrefix(k, h.ExclusivePrefix) {
				want = append(want, k)
			}
		}
		assert.Equal(t, want, keys(t, s, ""), "everything else survives")
		require.NoError(t, s.CheckData(ctx, neighbour))
		require.NoError(t, s.CheckData(ctx, otherJob))

		t.Run("again", func(t *testing.T) {
			res, err := s.Discard(ctx, h)
			require.NoError(t, err, "already gone is success")
			assert.Equal(t, DiscardResult{}, res)
			assert.Equal(t, want, keys(t, s, ""))
		})
	})

	t.Run("DiscardWithoutHandleBlob", func(t *testing.T) {
		// A Persist that never landed, or a Discard interrupted after the
		// handle went: the data is still deleted.
		s := open(t)
		h := seedCheckpoint(t, s, "orders", 1, 6, 2)
		res, err := s.Discard(ctx, h)
		require.NoError(t, err)
		assert.Equal(t, 3, res.DeletedObjects)
		assert.Empty(t, keys(t, s, ""))
	})

	t.Run("DiscardInterruptedAfterData", func(t *testing.T) {
		// Data gone, handle still there: the retry removes the handle.
		s := open(t)
		h := seedCheckpoint(t, s, "orders", 1, 8, 2)
		_, err := s.Write(ctx, h)
		require.NoError(t, err)
		for _, k := range keys(t, s, h.ExclusivePrefix) {
			require.NoError(t, s.bucket.Delete(ctx, k))
		}
		_, err = s.Discard(ctx, h)
		require.NoError(t, err)
		assert.Empty(t, keys(t, s, ""))
	})

	t.Run("DiscardKeepsSavepointData", func(t *testing.T) {
		s := open(t)
		meta := []byte("savepoint metadata")
		put(t, s, "savepoints/savepoint-0a1b2c/_metadata", meta)
		put(t, s, "savepoints/savepoint-0a1b2c/data-1", []byte("state"))
		sp := Handle{
			CheckpointID:    ckpt("orders", 12),
			Epoch:           1,
			MetadataKey:     "savepoints/savepoint-0a1b2c/_metadata",
			MetadataSHA256:  sha(meta),
			ExclusivePrefix: "savepoints/savepoint-0a1b2c/",
			Savepoint:       true,
		}
		key, err := s.Write(ctx, sp)
		require.NoError(t, err)
		require.NoError(t, s.CheckData(ctx, sp))

		res, err := s.Discard(ctx, sp)
		require.NoError(t, err)
		assert.Equal(t, DiscardResult{DataKept: true}, res)
		assert.False(t, exists(t, s, key), "the handle blob goes")
		assert.Equal(t, []string{"savepoints/savepoint-0a1b2c/_metadata", "savepoints/savepoint-0a1b2c/data-1"}, keys(t, s, ""))
		require.NoError(t, s.CheckData(ctx, sp))

		// A savepoint handle written in a Flink chk-<id>/ layout is no
		// different: its data stays.
		h := seedCheckpoint(t, s, "orders", 1, 13, 2)
		h.Savepoint = true
		_, err = s.Write(ctx, h)
		require.NoError(t, err)
		res, err = s.Discard(ctx, h)
		require.NoError(t, err)
		assert.True(t, res.DataKept)
		assert.Len(t, keys(t, s, h.ExclusivePrefix), 3)
	})

	t.Run("DiscardRefusesADifferentStoredHandle", func(t *testing.T) {
		s := open(t)
		h := seedCheckpoint(t, s, "orders", 1, 14, 2)
		_, err := s.Write(ctx, h)
		require.NoError(t, err)
		before := keys(t, s, "")

		wrong := h
		wrong.MetadataSHA256 = sha([]byte("not what was persisted"))
		_, err = s.Discard(ctx, wrong)
		require.ErrorIs(t, err, stores.ErrHandleConflict)
		assert.Equal(t, before, keys(t, s, ""), "nothing deleted")
	})

	t.Run("InvalidInputWritesNothing", func(t *testing.T) {
		s := open(t)
		for name, h := range invalidHandles() {
			t.Run(name, func(t *testing.T) {
				_, err := s.Write(ctx, h)
				requireInvalid(t, err)
				requireInvalid(t, s.CheckData(ctx, h))
				_, err = s.Discard(ctx, h)
				requireInvalid(t, err)
			})
		}
		_, err := s.Read(ctx, stores.CheckpointID{JobID: jobID("Orders"), Checkpoint: 1}, 1)
		requireInvalid(t, err)
		_, err = s.Read(ctx, ckpt("orders", 1), 0)
		requireInvalid(t, err)
		_, err = s.ReadKey(ctx, "handles/../../etc/passwd")
		requireInvalid(t, err)
		assert.Empty(t, keys(t, s, ""), "nothing was written")
	})

	t.Run("InvalidDiscardDeletesNothing", func(t *testing.T) {
		s := open(t)
		h := seedCheckpoint(t, s, "orders", 1, 15, 2)
		put(t, s, "flink/orders/shared/sst-1", []byte("shared"))
		before := keys(t, s, "")
		for _, prefix := range []string{"", "flink/", "flink/orders/", "flink/orders/shared/", "flink/orders/chk-1/", "flink/orders/chk-15/../shared/"} {
			bad := h
			bad.ExclusivePrefix = prefix
			_, err := s.Discard(ctx, bad)
			requireInvalid(t, err)
		}
		assert.Equal(t, before, keys(t, s, ""))
	})

	t.Run("ConcurrentRewritesAndReads", func(t *testing.T) {
		// Retried activities may rewrite a handle while a recovering job
		// manager reads it: every read must see the whole handle.
		s := open(t)
		h := seedCheckpoint(t, s, "orders", 1, 17, 0)
		_, err := s.Write(ctx, h)
		require.NoError(t, err)
		const workers, writes, reads = 4, 10, 20
		var wg sync.WaitGroup
		errs := make(chan error, workers*(writes+reads)) // never blocks a worker
		for range workers {
			wg.Go(func() {
				for range writes {
					if _, err := s.Write(ctx, h); err != nil {
						errs <- err
					}
				}
			})
			wg.Go(func() {
				for range reads {
					got, err := s.Read(ctx, h.CheckpointID, h.Epoch)
					if err == nil && got != h {
						err = fmt.Errorf("read %+v", got)
					}
					if err != nil {
						errs <- err
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})

	t.Run("CancelledContextIsAnError", func(t *testing.T) {
		s := open(t)
		h := seedCheckpoint(t, s, "orders", 1, 16, 2)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := s.Write(cctx, h)
		require.Error(t, err)
		_, err = s.Discard(cctx, h)
		require.Error(t, err)
		assert.NotErrorIs(t, err, ErrNotFound)
		assert.Len(t, keys(t, s, h.ExclusivePrefix), 3, "nothing deleted")
	})

	runListing(t, open)
}

func envelopeSum(t *testing.T, b []byte) string {
	t.Helper()
	var env envelope
	require.NoError(t, json.Unmarshal(b, &env))
	return env.SHA256
}

func flip(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0x01
	return c
}

func hasPrefix(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }

func requireInvalid(t *testing.T, err error) {
	t.Helper()
	require.ErrorIs(t, err, stores.ErrInvalid)
	var inv *stores.InvalidError
	require.ErrorAs(t, err, &inv)
	require.NotEmpty(t, inv.Field)
	require.NotEmpty(t, inv.Rule)
}

// invalidHandles are handles Validate must refuse, each for one rule.
func invalidHandles() map[string]Handle {
	mod := func(f func(h *Handle)) Handle {
		h := validHandle()
		f(&h)
		return h
	}
	long := make([]byte, stores.MaxKeyLength)
	for i := range long {
		long[i] = 'a'
	}
	return map[string]Handle{
		"bad cluster":             mod(func(h *Handle) { h.Cluster = "Prod" }),
		"empty job":               mod(func(h *Handle) { h.Job = "" }),
		"checkpoint 0":            mod(func(h *Handle) { h.Checkpoint = 0 }),
		"epoch 0":                 mod(func(h *Handle) { h.Epoch = 0 }),
		"empty metadata key":      mod(func(h *Handle) { h.MetadataKey = "" }),
		"metadata key with ..":    mod(func(h *Handle) { h.MetadataKey = "flink/orders/chk-42/../chk-41/_metadata" }),
		"absolute metadata key":   mod(func(h *Handle) { h.MetadataKey = "/flink/orders/chk-42/_metadata" }),
		"metadata key with space": mod(func(h *Handle) { h.MetadataKey = "flink/orders/chk-42/_meta data" }),
		"metadata outside prefix": mod(func(h *Handle) { h.MetadataKey = "flink/orders/chk-41/_metadata" }),
		"metadata in handles/":    mod(func(h *Handle) { h.MetadataKey = "handles/x"; h.Savepoint = true; h.ExclusivePrefix = "" }),
		"metadata key too long":   mod(func(h *Handle) { h.MetadataKey = h.ExclusivePrefix + string(long) }),
		"short checksum":          mod(func(h *Handle) { h.MetadataSHA256 = "abc" }),
		"uppercase checksum":      mod(func(h *Handle) { h.MetadataSHA256 = "A" + h.MetadataSHA256[1:] }),
		"non-hex checksum":        mod(func(h *Handle) { h.MetadataSHA256 = "g" + h.MetadataSHA256[1:] }),
		"empty prefix":            mod(func(h *Handle) { h.ExclusivePrefix = "" }),
		"bucket root prefix":      mod(func(h *Handle) { h.ExclusivePrefix = "/" }),
		"job prefix":              mod(func(h *Handle) { h.ExclusivePrefix = "flink/orders/" }),
		"shared prefix":           mod(func(h *Handle) { h.ExclusivePrefix = "flink/orders/shared/" }),
		"other checkpoint":        mod(func(h *Handle) { h.ExclusivePrefix = "flink/orders/chk-4/" }),
		"prefix of chk-420": mod(func(h *Handle) {
			h.ExclusivePrefix = "flink/orders/chk-42"
			h.MetadataKey = "flink/orders/chk-42/_metadata"
		}),
		"no trailing slash":  mod(func(h *Handle) { h.ExclusivePrefix = "flink/orders/chk-42" }),
		"prefix with ..":     mod(func(h *Handle) { h.ExclusivePrefix = "flink/../chk-42/" }),
		"prefix with //":     mod(func(h *Handle) { h.ExclusivePrefix = "flink//chk-42/" }),
		"absolute prefix":    mod(func(h *Handle) { h.ExclusivePrefix = "/flink/orders/chk-42/" }),
		"prefix in handles/": mod(func(h *Handle) { h.ExclusivePrefix = "handles/chk-42/"; h.MetadataKey = "handles/chk-42/_metadata" }),
		"chk-042": mod(func(h *Handle) {
			h.ExclusivePrefix = "flink/orders/chk-042/"
			h.MetadataKey = "flink/orders/chk-042/_metadata"
		}),
		"xchk-42": mod(func(h *Handle) {
			h.ExclusivePrefix = "flink/orders/xchk-42/"
			h.MetadataKey = "flink/orders/xchk-42/_metadata"
		}),
		"savepoint prefix with ..": mod(func(h *Handle) {
			h.Savepoint = true
			h.ExclusivePrefix = "savepoints/../flink/"
		}),
		"metadata .attrs": mod(func(h *Handle) { h.MetadataKey = "flink/orders/chk-42/_metadata.attrs" }),
		"prefix with control char": mod(func(h *Handle) {
			h.ExclusivePrefix = fmt.Sprintf("flink/%c/chk-42/", 0x01)
		}),
	}
}
