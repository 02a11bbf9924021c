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

	// The finalization of the subsumed checkpoint was published: Present,
	// and the verify writes nothing (I7).
	assert.Equal(t, stores.Present, verify(t, s, 1, "one", 1))
	assert.Equal(t, stores.ReasonSubsumed, read(t, s, 1).Tombstone.Reason)
	assert.Equal(t, stores.Absent, verify(t, s, 1, "another", 1), "another token never was")
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

	// A savepoint's removal leaves its record, which no collection takes.
	savepoint := publication(6, 2, "six", 1)
	savepoint.Reference.Savepoint = true
	publish(t, s, savepoint)
	require.NoError(t, s.Subsume(ctx(t), checkpoint(6), 2))
	assert.Equal(t, stores.ReasonSavepoint, read(t, s, 6).Tombstone.Reason)
	assert.Equal(t, stores.Present, verify(t, s, 6, "six", 1))
	requireRejected(t, s.CollectSubsumed(ctx(t), checkpoint(6), "six"), stores.ErrConflict)
	_, err = s.CollectTombstones(ctx(t), testJob, now().Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, stores.ReasonSavepoint, read(t, s, 6).Tombstone.Reason, "the savepoint's record stays")
}

func testRetireAndCollect(t *testing.T, h Harness) {
	s := h.Open(t)
	claim(t, s, 1)
	publish(t, s, publication(1, 1, "one", 1))
	publish(t, s, publication(2, 1, "two", 1))
	requireRejected(t, s.Retire(ctx(t), testJob, 2, false), stores.ErrStaleEpoch)
	require.NoError(t, s.Retire(ctx(t), testJob, 1, false))
	require.NoError(t, s.Retire(ctx(t), testJob, 1, false), "retire is idempotent")

	list, err := s.List(ctx(t), testJob)
	require.NoError(t, err)
	assert.Empty(t, list)
	assert.Equal(t, stores.ReasonRetired, read(t, s, 2).Tombstone.Reason)
	assert.Equal(t, stores.Present, verify(t, s, 2, "two", 1), "a retired reference was published")
	requireRejected(t, s.Publish(ctx(t), publication(3, 1, "three", 1)), stores.ErrRetired)
	requireRejected(t, s.ClaimEpoch(ctx(t), testJob, 1, "jm-1"), stores.ErrRetired)
	// A verify after the retirement, above its watermark, writes a fence...
	assert.Equal(t, stores.Absent, verify(t, s, 5, "five", 1))

	n, err := s.CollectTombstones(ctx(t), testJob, now().Add(-time.Hour))
	require.NoError(t, err)
	assert.Zero(t, n, "tombstones younger than the cutoff stay")

	// ...which does not keep the job from being forgotten.
	n, err = s.CollectTombstones(ctx(t), testJob, now().Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	assert.True(t, read(t, s, 1).Absent())
	assert.True(t, read(t, s, 5).Absent())
	st, err := s.ReadJob(ctx(t), testJob)
	require.NoError(t, err)
	assert.Equal(t, stores.JobState{Epoch: 1, ForgottenEpoch: 1}, st, "a retired job with no keys left is forgotten, its epoch floor kept")

	// Nothing of the old incarnation lands before or after a new claim.
	requireRejected(t, s.Publish(ctx(t), publication(1, 1, "zombie", 1)), stores.ErrStaleEpoch)
	requireRejected(t, s.Subsume(ctx(t), checkpoint(1), 1), stores.ErrStaleEpoch)
	requireRejected(t, s.ClaimEpoch(ctx(t), testJob, 1, "jm-1"), stores.ErrStaleEpoch)

	// A fresh submission under the same job ID continues the epochs and
	// starts its checkpoint IDs over.
	claim(t, s, 2)
	publish(t, s, publication(1, 2, "fresh", 1))
	requireRejected(t, s.Publish(ctx(t), publication(2, 1, "zombie", 1)), stores.ErrStaleEpoch)
	st, err = s.ReadJob(ctx(t), testJob)
	require.NoError(t, err)
	assert.Equal(t, stores.JobState{Epoch: 2, Owner: "jm-2", ForgottenEpoch: 1}, st)
}

// A retirement that keeps the state marks its tombstones retained: no
// collection takes them, so the job stays retired. A retired job with
// nothing to collect is forgotten all the same.
func testRetireRetained(t *testing.T, h Harness) {
	s := h.Open(t)
	claim(t, s, 3)
	publish(t, s, publication(4, 3, "four", 1))
	require.NoError(t, s.Retire(ctx(t), testJob, 3, true))
	assert.Equal(t, stores.ReasonRetained, read(t, s, 4).Tombstone.Reason)
	assert.Equal(t, stores.Present, verify(t, s, 4, "four", 2))
	n, err := s.CollectTombstones(ctx(t), testJob, now().Add(time.Hour))
	require.NoError(t, err)
	assert.Zero(t, n, "a retained record is never collected")
	assert.Equal(t, stores.ReasonRetained, read(t, s, 4).Tombstone.Reason)
	st, err := s.ReadJob(ctx(t), testJob)
	require.NoError(t, err)
	assert.True(t, st.Retired, "a job holding a kept record stays retired: %+v", st)

	empty := stores.JobID{Cluster: testJob.Cluster, Job: "empty-job"}
	require.NoError(t, s.ClaimEpoch(ctx(t), empty, 7, "jm-7"))
	require.NoError(t, s.Retire(ctx(t), empty, 7, true))
	n, err = s.CollectTombstones(ctx(t), empty, now().Add(time.Hour))
	require.NoError(t, err)
	assert.Zero(t, n)
	st, err = s.ReadJob(ctx(t), empty)
	require.NoError(t, err)
	assert.Equal(t, stores.JobState{Epoch: 7, ForgottenEpoch: 7}, st, "a retired job without keys is forgotten")
	require.NoError(t, s.ClaimEpoch(ctx(t), empty, 8, "jm-8"))

	// A savepoint's reference keeps its record even when the retirement
	// lets the checkpoints go: its data is never discarded.
	sp := stores.JobID{Cluster: testJob.Cluster, Job: "savepoint-job"}
	require.NoError(t, s.ClaimEpoch(ctx(t), sp, 1, "jm-1"))
	p := publication(1, 1, "sp", 1)
	p.JobID, p.Reference.Savepoint = sp, true
	require.NoError(t, s.Publish(ctx(t), p))
	require.NoError(t, s.Retire(ctx(t), sp, 1, false))
	_, err = s.CollectTombstones(ctx(t), sp, now().Add(time.Hour))
	require.NoError(t, err)
	e, err := s.Read(ctx(t), p.CheckpointID)
	require.NoError(t, err)
	require.NotNil(t, e.Tombstone, "the savepoint's record stays")
	assert.Equal(t, stores.ReasonSavepoint, e.Tombstone.Reason)
}

// A job resubmitted under its ID right after its retirement (Flink's
// application mode, a cancel and a new submission) claims above the retired
// epoch at once: a new incarnation, publishing only above every key the old
// one left (a fence written after the retirement included), while the old
// incarnation's tombstones stay and answer its verifies. The retained ones
// are the records of the operator's state: no collection takes them; the
// others are collected like any other at or below the watermark.
func testResubmitAfterRetire(t *testing.T, h Harness) {
	s := h.Open(t)
	claim(t, s, 1)
	publish(t, s, publication(1, 1, "one", 1))
	publish(t, s, publication(2, 1, "two", 1))
	require.NoError(t, s.Retire(ctx(t), testJob, 1, true))
	assert.Equal(t, stores.Absent, verify(t, s, 4, "four", 1), "a verify after the retirement fences above its watermark")

	claim(t, s, 2)
	claim(t, s, 2) // a retried claim finds its own write
	st, err := s.ReadJob(ctx(t), testJob)
	require.NoError(t, err)
	assert.Equal(t, stores.JobState{Epoch: 2, Owner: "jm-2", Watermark: 4, ForgottenEpoch: 1}, st,
		"a new incarnation above the retired one, its watermark over every key left")
	requireRejected(t, s.ClaimEpoch(ctx(t), testJob, 1, "jm-1"), stores.ErrStaleEpoch)
	assert.Equal(t, stores.ReasonRetained, read(t, s, 2).Tombstone.Reason, "the retained state stays the operator's")
	assert.Equal(t, stores.Present, verify(t, s, 2, "two", 1), "an old verify still learns it published")
	assert.Equal(t, stores.ReasonRetained, read(t, s, 2).Tombstone.Reason)

	requireRejected(t, s.Publish(ctx(t), publication(5, 1, "zombie", 1)), stores.ErrStaleEpoch)
	requireRejected(t, s.Publish(ctx(t), publication(4, 2, "again", 1)), stores.ErrBelowWatermark)
	publish(t, s, publication(5, 2, "five", 1))

	n, err := s.CollectTombstones(ctx(t), testJob, now().Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the old incarnation's fence goes once old, at or below the watermark")
	for _, k := range []uint64{1, 2} {
		assert.Equal(t, stores.ReasonRetained, read(t, s, k).Tombstone.Reason, "checkpoint %d keeps its retained record", k)
	}
	assert.NotNil(t, read(t, s, 5).Reference)
	st, err = s.ReadJob(ctx(t), testJob)
	require.NoError(t, err)
	assert.Equal(t, stores.JobState{Epoch: 2, Owner: "jm-2", Watermark: 4, ForgottenEpoch: 1}, st, "the running incarnation is not forgotten")
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

// A subsumed tombstone goes as soon as its finalization has closed (the
// caller's knowledge): only that tombstone, of that token, at or below the
// watermark. The freed key takes no publish, and a verify finds it free.
// Anything else at the key is a conflict that deletes nothing; a retry
// finding its own delete is Published.
func testCollectSubsumed(t *testing.T, h Harness) {
	s := h.Open(t)
	claim(t, s, 1)
	publish(t, s, publication(1, 1, "one", 1))
	publish(t, s, publication(2, 1, "two", 1))
	publish(t, s, publication(3, 1, "three", 2))
	require.NoError(t, s.Subsume(ctx(t), checkpoint(1), 1))
	require.NoError(t, s.Subsume(ctx(t), checkpoint(2), 1))
	assert.Equal(t, stores.Absent, verify(t, s, 5, "five", 1), "a fence above the watermark")
	subsumed := read(t, s, 2)

	requireRejected(t, s.CollectSubsumed(ctx(t), checkpoint(2), "one"), stores.ErrConflict)
	requireRejected(t, s.CollectSubsumed(ctx(t), checkpoint(3), "three"), stores.ErrConflict)
	requireRejected(t, s.CollectSubsumed(ctx(t), checkpoint(5), "five"), stores.ErrConflict)
	assert.Equal(t, subsumed, read(t, s, 2), "a conflict deletes nothing")
	assert.NotNil(t, read(t, s, 3).Reference)
	assert.NotNil(t, read(t, s, 5).Tombstone)

	require.NoError(t, s.CollectSubsumed(ctx(t), checkpoint(2), "two"))
	assert.True(t, read(t, s, 2).Absent())
	require.NoError(t, s.CollectSubsumed(ctx(t), checkpoint(2), "two"), "a retry finds its own delete")
	assert.NotNil(t, read(t, s, 1).Tombstone, "only the named key goes")
	requireRejected(t, s.Publish(ctx(t), publication(2, 1, "two", 2)), stores.ErrBelowWatermark)
	st, err := s.ReadJob(ctx(t), testJob)
	require.NoError(t, err)
	assert.Equal(t, uint64(2), st.Watermark, "the watermark stays")

	// A late verify of another token finds the key free and fences it.
	assert.Equal(t, stores.Absent, verify(t, s, 2, "other", 1))
	requireRejected(t, s.CollectSubsumed(ctx(t), checkpoint(2), "two"), stores.ErrConflict)

	// A retired job's subsumed tombstone goes the same way, and a retired
	// key's never.
	require.NoError(t, s.Retire(ctx(t), testJob, 1, false))
	requireRejected(t, s.CollectSubsumed(ctx(t), checkpoint(3), "three"), stores.ErrConflict)
	require.NoError(t, s.CollectSubsumed(ctx(t), checkpoint(1), "one"))
	assert.True(t, read(t, s, 1).Absent())
}

// An operator's release turns a kept record (retained, a savepoint's) of
// its token into a retired tombstone, which the collection then takes past
// its TTL; a retry finds its own write. Nothing else is released: a
// reference, another token's record, a tombstone that keeps nothing, an
// absent key.
func testRelease(t *testing.T, h Harness) {
	s := h.Open(t)
	claim(t, s, 1)
	savepoint := publication(1, 1, "one", 1)
	savepoint.Reference.Savepoint = true
	publish(t, s, savepoint)
	publish(t, s, publication(2, 1, "two", 1))
	publish(t, s, publication(3, 1, "three", 1))
	require.NoError(t, s.Subsume(ctx(t), checkpoint(1), 1))
	require.NoError(t, s.Subsume(ctx(t), checkpoint(2), 1))
	assert.Equal(t, stores.Absent, verify(t, s, 9, "nine", 1))

	requireRejected(t, s.Release(ctx(t), checkpoint(3), "three"), stores.ErrConflict)
	requireRejected(t, s.Release(ctx(t), checkpoint(1), "two"), stores.ErrConflict)
	requireRejected(t, s.Release(ctx(t), checkpoint(2), "two"), stores.ErrConflict)
	requireRejected(t, s.Release(ctx(t), checkpoint(9), "nine"), stores.ErrConflict)
	requireRejected(t, s.Release(ctx(t), checkpoint(7), "seven"), stores.ErrConflict)
	requireRejected(t, s.Release(ctx(t), checkpoint(1), ""), stores.ErrInvalid)

	require.NoError(t, s.Release(ctx(t), checkpoint(1), "one"))
	require.NoError(t, s.Release(ctx(t), checkpoint(1), "one"), "a retry finds its own write")
	e := read(t, s, 1)
	require.NotNil(t, e.Tombstone)
	assert.Equal(t, stores.ReasonRetired, e.Tombstone.Reason)
	assert.Equal(t, stores.Present, verify(t, s, 1, "one", 1), "its token was published all the same")

	require.NoError(t, s.Retire(ctx(t), testJob, 1, true))
	require.Equal(t, stores.ReasonRetained, read(t, s, 3).Tombstone.Reason)
	require.NoError(t, s.Release(ctx(t), checkpoint(3), "three"))
	assert.Equal(t, stores.ReasonRetired, read(t, s, 3).Tombstone.Reason)

	_, err := s.CollectTombstones(ctx(t), testJob, now().Add(time.Hour))
	require.NoError(t, err)
	st, err := s.ReadJob(ctx(t), testJob)
	require.NoError(t, err)
	assert.Equal(t, stores.JobState{Epoch: 1, ForgottenEpoch: 1}, st, "with its records released, the retired job is forgotten")
}
