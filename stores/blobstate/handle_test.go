package blobstate

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

func TestValidateAcceptsFlinkLayouts(t *testing.T) {
	mod := func(f func(h *Handle)) Handle {
		h := validHandle()
		f(&h)
		return h
	}
	for name, h := range map[string]Handle{
		"checkpoint":     validHandle(),
		"prefix at root": mod(func(h *Handle) { h.ExclusivePrefix = "chk-42/"; h.MetadataKey = "chk-42/_metadata" }),
		"deep prefix": mod(func(h *Handle) {
			h.ExclusivePrefix = "a/B_c/d.e/0123abcd/chk-42/"
			h.MetadataKey = "a/B_c/d.e/0123abcd/chk-42/_metadata"
		}),
		"savepoint": mod(func(h *Handle) {
			h.Savepoint = true
			h.ExclusivePrefix = "sp/savepoint-1f2e-3d4c/"
			h.MetadataKey = "sp/savepoint-1f2e-3d4c/_metadata"
		}),
		"savepoint no data": mod(func(h *Handle) { h.Savepoint = true; h.ExclusivePrefix = ""; h.MetadataKey = "sp/x/_metadata" }),
		"max ids": mod(func(h *Handle) {
			h.Checkpoint, h.Epoch = math.MaxUint64, math.MaxUint64
			h.ExclusivePrefix = "chk-18446744073709551615/"
			h.MetadataKey = "chk-18446744073709551615/_metadata"
		}),
	} {
		t.Run(name, func(t *testing.T) { require.NoError(t, h.Validate()) })
	}
}

func TestValidateRefusesEachRule(t *testing.T) {
	for name, h := range invalidHandles() {
		t.Run(name, func(t *testing.T) {
			err := h.Validate()
			requireInvalid(t, err)
			_, err = EncodeEnvelope(h)
			requireInvalid(t, err)
		})
	}
}

func TestValidateNamesTheField(t *testing.T) {
	h := validHandle()
	h.ExclusivePrefix = "flink/orders/shared/"
	var inv *stores.InvalidError
	require.ErrorAs(t, h.Validate(), &inv)
	assert.Equal(t, "exclusivePrefix", inv.Field)
	assert.Contains(t, inv.Rule, `"chk-42/"`)
}

func TestKeyRoundTrip(t *testing.T) {
	id := ckpt("orders", 7)
	key := Key(id, 12)
	assert.Equal(t, "handles/prod-eu/orders/00000000000000000012/00000000000000000007.json", key)
	gotID, gotEpoch, err := ParseKey(key)
	require.NoError(t, err)
	assert.Equal(t, id, gotID)
	assert.Equal(t, uint64(12), gotEpoch)

	maxKey := Key(stores.CheckpointID{JobID: id.JobID, Checkpoint: math.MaxUint64}, math.MaxUint64)
	gotID, gotEpoch, err = ParseKey(maxKey)
	require.NoError(t, err)
	assert.Equal(t, uint64(math.MaxUint64), gotID.Checkpoint)
	assert.Equal(t, uint64(math.MaxUint64), gotEpoch)
}

func TestKeysSortNumerically(t *testing.T) {
	a := Key(ckpt("orders", 9), 1)
	b := Key(ckpt("orders", 10), 1)
	assert.Less(t, a, b)
}

func TestParseKeyRefusesOtherSpellings(t *testing.T) {
	for _, k := range []string{
		"",
		"handles/prod-eu/orders/12/7.json",
		"handles/prod-eu/orders/00000000000000000012/00000000000000000007",
		"handles/prod-eu/orders/00000000000000000012/00000000000000000000.json",
		"handles/prod-eu/orders/00000000000000000000/00000000000000000007.json",
		"handles/prod-eu/orders/99999999999999999999/00000000000000000007.json",
		"handles/prod-eu/orders/+0000000000000000012/00000000000000000007.json",
		"handles/Prod/orders/00000000000000000012/00000000000000000007.json",
		"handles/prod-eu/../00000000000000000012/00000000000000000007.json",
		"handles/prod-eu/orders/x/00000000000000000012/00000000000000000007.json",
		"/handles/prod-eu/orders/00000000000000000012/00000000000000000007.json",
		"flink/orders/chk-7/_metadata",
	} {
		t.Run(k, func(t *testing.T) {
			_, _, err := ParseKey(k)
			requireInvalid(t, err)
		})
	}
}
