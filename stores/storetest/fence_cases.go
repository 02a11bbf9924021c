package storetest

import (
	"time"

	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

func testVerifyPresent(t *testing.T, h Harness) {
	s := h.Open(t)
	claim(t, s, 1)
	publish(t, s, publication(1, 1, "tok", 1))
	assert.Equal(t, stores.Present, verify(t, h.Open(t), 1, "tok", 1))
	assert.Equal(t, stores.Present, verify(t, s, 1, "tok", 3), "any attempt of the token that holds the key")
	assert.NotNil(t, read(t, s, 1).Reference, "verify of a present reference writes nothing")
}

// I6: once Verify answers Absent, a replayed attempt up to the fenced one is
// Rejected and changes nothing.
func testVerifyFencesAbsent(t *testing.T, h Harness) {
	s := h.Open(t)
	claim(t, s, 1)
	assert.Equal(t, stores.Absent, verify(t, s, 1, "tok", 2))

	fenced := read(t, s, 1)
	require.NotNil(t, fenced.Tombstone, "Absent must stand on a tombstone")
	assert.Equal(t, "tok", fenced.Tombstone.Token)
	assert.Equal(t, uint32(2), fenced.Tombstone.FencedUpTo)
	assert.Equal(t, stores.ReasonFenced, fenced.Tombstone.Reason)

	zombie := h.Open(t)
	for _, attempt := range []uint32{1, 2} {
		requireRejected(t, zombie.Publish(ctx(t), publication(1, 1, "tok", attempt)), stores.ErrFenced)
	}
	requireRejected(t, zombie.Publish(ctx(t), publication(1, 1, "other", 1)), stores.ErrConflict)
	assert.Equal(t, fenced, read(t, s, 1), "a replay after the fence changes nothing")

	// Verifying a lower attempt again keeps the fence where it is.
	assert.Equal(t, stores.Absent, verify(t, s, 1, "tok", 1))
	assert.Equal(t, fenced, read(t, s, 1))
	// A higher attempt raises it.
	assert.Equal(t, stores.Absent, verify(t, s, 1, "tok", 3))
	assert.Equal(t, uint32(3), read(t, s, 1).Tombstone.FencedUpTo)
	list, err := s.List(ctx(t), testJob)
	require.NoError(t, err)
	assert.Empty(t, list, "tombstones are not listed")
}

func testVerifyAnotherTokenAbsent(t *testing.T, h Harness) {
	s := h.Open(t)
	claim(t, s, 1)
	publish(t, s, publication(1, 1, "winner", 1))
	assert.Equal(t, stores.Absent, verify(t, s, 1, "loser", 1))
	assert.Equal(t, "winner", read(t, s, 1).Reference.Token, "verify never overwrites another token")
}

func testRepublishReplacesOwnTombstone(t *testing.T, h Harness) {
	s := h.Open(t)
	claim(t, s, 1)
	assert.Equal(t, stores.Absent, verify(t, s, 1, "tok", 1))
	publish(t, s, publication(1, 1, "tok", 2))
	e := read(t, s, 1)
	require.NotNil(t, e.Reference)
	assert.Equal(t, uint32(2), e.Reference.Attempt)
	assert.Equal(t, stores.Present, verify(t, s, 1, "tok", 2))
	// Another token cannot take over the fenced key.
	assert.Equal(t, stores.Absent, verify(t, s, 2, "tok", 1))
	requireRejected(t, s.Publish(ctx(t), publication(2, 1, "other", 2)), stores.ErrConflict)
}

func testSubsume(t *testing.T, h Harness) {
	s := h.Open(t)
	claim(t, s, 1)
	publish(t, s, publication(1, 1, "one", 1))
	publish(t, s, publication(2, 1, "two", 1))
	require.NoError(t, s.Subsume(ctx(t), checkpoint(1), 1))

	e := read(t, s, 1)
	require.NotNil(t, e.Tombstone)
	assert.Equal(t, stores.ReasonSubsumed, e.Tombstone.Reason)
	assert.Equal(t, "one", e.Tombstone.Token)
	st, err := s.ReadJob(ctx(t), testJob)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), st.Watermark)
	list, err := s.List(ctx(t), testJob)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, uint64(2), list[0].Checkpoint)

	// The finalization of the subsumed checkpoint now verifies Absent.
	assert.Equal(t, stores.Absent, verify(t, s, 1, "one", 1))
	require.NoError(t, s.Subsume(ctx(t), checkpoint(1), 1), "subsume is idempotent")

	// A deposed epoch never removes, but its retry of an applied removal stands.
	claim(t, h.Open(t), 2)
	requireRejected(t, s.Subsume(ctx(t), checkpoint(2), 1), stores.ErrStaleEpoch)
	assert.NotNil(t, read(t, s, 2).Reference)
	require.NoError(t, s.Subsume(ctx(t), checkpoint(1), 1))

	// Subsuming a key nobody published still fences it and raises the watermark.
	require.NoError(t, s.Subsume(ctx(t), checkpoint(4), 2))
	assert.NotNil(t, read(t, s, 4).Tombstone)
	requireRejected(t, s.Publish(ctx(t), publication(3, 2, "three", 1)), stores.ErrBelowWatermark)
}

func testRetireAndCollect(t *testing.T, h Harness) {
	s := h.Open(t)
	claim(t, s, 1)
	publish(t, s, publication(1, 1, "one", 1))
	publish(t, s, publication(2, 1, "two", 1))
	requireRejected(t, s.Retire(ctx(t), testJob, 2), stores.ErrStaleEpoch)
	require.NoError(t, s.Retire(ctx(t), testJob, 1))
	require.NoError(t, s.Retire(ctx(t), testJob, 1), "retire is idempotent")

	list, err := s.List(ctx(t), testJob)
	require.NoError(t, err)
	assert.Empty(t, list)
	assert.Equal(t, stores.ReasonRetired, read(t, s, 2).Tombstone.Reason)
	requireRejected(t, s.Publish(ctx(t), publication(3, 1, "three", 1)), stores.ErrRetired)
	requireRejected(t, s.ClaimEpoch(ctx(t), testJob, 9, "jm-9"), stores.ErrRetired)

	n, err := s.CollectTombstones(ctx(t), testJob, now().Add(-time.Hour))
	require.NoError(t, err)
	assert.Zero(t, n, "tombstones younger than the cutoff stay")

	n, err = s.CollectTombstones(ctx(t), testJob, now().Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	assert.True(t, read(t, s, 1).Absent())
	st, err := s.ReadJob(ctx(t), testJob)
	require.NoError(t, err)
	assert.Equal(t, stores.JobState{}, st, "a retired job with no keys left is forgotten")

	// A fresh submission under the same job ID starts its IDs over.
	claim(t, s, 1)
	publish(t, s, publication(1, 1, "fresh", 1))
}

func testCollectKeepsFencesAboveWatermark(t *testing.T, h Harness) {
	s := h.Open(t)
	claim(t, s, 1)
	assert.Equal(t, stores.Absent, verify(t, s, 7, "tok", 1))
	publish(t, s, publication(2, 1, "two", 1))
	require.NoError(t, s.Subsume(ctx(t), checkpoint(2), 1))

	n, err := s.CollectTombstones(ctx(t), testJob, now().Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, 1, n, "only the subsumed key at the watermark goes")
	assert.NotNil(t, read(t, s, 7).Tombstone, "a fence above the watermark is what keeps attempts out")
	requireRejected(t, s.Publish(ctx(t), publication(7, 1, "tok", 1)), stores.ErrFenced)
	requireRejected(t, s.Publish(ctx(t), publication(2, 1, "two", 1)), stores.ErrBelowWatermark)
}
