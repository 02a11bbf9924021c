package storetest

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

func testPublishReadList(t *testing.T, h Harness) {
	s := h.Open(t)
	claim(t, s, 1)
	// IDs of 20 digits too (a checkpoint ID may be any uint64): padded to
	// 19 digits, their keys sort lexically before 19-digit ones.
	const nineteen, twenty, last = 9_999_999_999_999_999_999, 10_000_000_000_000_000_000, math.MaxUint64
	for _, n := range []uint64{3, twenty, 1, last, 12, nineteen} {
		publish(t, s, publication(n, 1, "tok", 1))
	}

	e := read(t, s, 12)
	require.NotNil(t, e.Reference)
	assert.Equal(t, publication(12, 1, "tok", 1).Reference, *e.Reference)
	assert.Equal(t, uint64(12), e.Checkpoint)
	assert.True(t, read(t, s, 2).Absent())

	list, err := s.List(ctx(t), testJob)
	require.NoError(t, err)
	var ids []uint64
	for _, e := range list {
		ids = append(ids, e.Checkpoint)
	}
	assert.Equal(t, []uint64{1, 3, 12, nineteen, twenty, last}, ids, "checkpoint order, numeric not lexical")
	var all []uint64
	for _, e := range listEntries(t, s, testJob) {
		all = append(all, e.Checkpoint)
	}
	assert.Equal(t, ids, all, "ListEntries in checkpoint order")

	other, err := s.List(ctx(t), stores.JobID{Cluster: testJob.Cluster, Job: "other"})
	require.NoError(t, err)
	assert.Empty(t, other)
}

func testIdempotentRepublish(t *testing.T, h Harness) {
	a, b := h.Open(t), h.Open(t)
	claim(t, a, 1)
	publish(t, a, publication(1, 1, "tok", 1))
	// A retry, even from another client, finds its own write: Published.
	publish(t, a, publication(1, 1, "tok", 1))
	publish(t, b, publication(1, 1, "tok", 1))
	// So does a retry after a newer epoch took over: the write already stands.
	require.NoError(t, b.ClaimEpoch(ctx(t), testJob, 2, "jm-2"))
	publish(t, a, publication(1, 1, "tok", 1))
	assert.Equal(t, "tok", read(t, b, 1).Reference.Token)
}

func testAnotherTokenRejected(t *testing.T, h Harness) {
	s := h.Open(t)
	claim(t, s, 1)
	publish(t, s, publication(1, 1, "first", 1))
	requireRejected(t, s.Publish(ctx(t), publication(1, 1, "second", 1)), stores.ErrConflict)
	assert.Equal(t, "first", read(t, s, 1).Reference.Token)
}

func testStaleEpochRejected(t *testing.T, h Harness) {
	s := h.Open(t)
	requireRejected(t, s.Publish(ctx(t), publication(1, 1, "tok", 1)), stores.ErrStaleEpoch)
	claim(t, s, 1)
	claim(t, h.Open(t), 2)
	requireRejected(t, s.Publish(ctx(t), publication(1, 1, "tok", 1)), stores.ErrStaleEpoch)
	requireRejected(t, s.Publish(ctx(t), publication(1, 3, "tok", 1)), stores.ErrStaleEpoch)
	assert.True(t, read(t, s, 1).Absent())
	publish(t, s, publication(1, 2, "tok", 1))
}

func testClaimEpoch(t *testing.T, h Harness) {
	s := h.Open(t)
	require.NoError(t, s.ClaimEpoch(ctx(t), testJob, 5, "jm-a"))
	require.NoError(t, s.ClaimEpoch(ctx(t), testJob, 5, "jm-a"), "re-claiming the standing epoch")
	requireRejected(t, s.ClaimEpoch(ctx(t), testJob, 5, "jm-b"), stores.ErrStaleEpoch)
	requireRejected(t, s.ClaimEpoch(ctx(t), testJob, 4, "jm-b"), stores.ErrStaleEpoch)
	require.NoError(t, s.ClaimEpoch(ctx(t), testJob, 6, "jm-b"))
	st, err := s.ReadJob(ctx(t), testJob)
	require.NoError(t, err)
	assert.Equal(t, stores.JobState{Epoch: 6, Owner: "jm-b"}, st)
}

func testBelowWatermarkRejected(t *testing.T, h Harness) {
	s := h.Open(t)
	claim(t, s, 1)
	publish(t, s, publication(5, 1, "five", 1))
	require.NoError(t, s.Subsume(ctx(t), checkpoint(5), 1))
	requireRejected(t, s.Publish(ctx(t), publication(3, 1, "three", 1)), stores.ErrBelowWatermark)
	requireRejected(t, s.Publish(ctx(t), publication(5, 1, "other", 1)), stores.ErrBelowWatermark)
	assert.True(t, read(t, s, 3).Absent())
	publish(t, s, publication(6, 1, "six", 1))
}

func testInvalidInputWritesNothing(t *testing.T, h Harness) {
	s := h.Open(t)
	claim(t, s, 1)
	long := make([]byte, stores.MaxHandleLength+1)
	for i := range long {
		long[i] = 'h'
	}
	cases := []struct {
		field string
		p     stores.Publication
	}{
		{"cluster", withJob(publication(1, 1, "tok", 1), "", testJob.Job)},
		{"cluster", withJob(publication(1, 1, "tok", 1), "../etc", testJob.Job)},
		{"job", withJob(publication(1, 1, "tok", 1), testJob.Cluster, "a/b")},
		{"job", withJob(publication(1, 1, "tok", 1), testJob.Cluster, "..")},
		{"job", withJob(publication(1, 1, "tok", 1), testJob.Cluster, "Job_With_Upper")},
		{"job", withJob(publication(1, 1, "tok", 1), testJob.Cluster, "nul\x00")},
		{"checkpoint", publication(0, 1, "tok", 1)},
		{"epoch", publication(1, 0, "tok", 1)},
		{"token", publication(1, 1, "", 1)},
		{"token", publication(1, 1, "tab\there", 1)},
		{"attempt", publication(1, 1, "tok", 0)},
		{"handle", withHandle(publication(1, 1, "tok", 1), string(long))},
		{"handle", withHandle(publication(1, 1, "tok", 1), "")},
	}
	for _, c := range cases {
		err := s.Publish(ctx(t), c.p)
		requireRejected(t, err, stores.ErrInvalid)
		var inv *stores.InvalidError
		require.ErrorAs(t, err, &inv)
		assert.Equal(t, c.field, inv.Field, "error %v", err)
	}
	requireRejected(t, s.ClaimEpoch(ctx(t), stores.JobID{Cluster: "c", Job: "x/y"}, 1, "o"), stores.ErrInvalid)
	requireRejected(t, s.ClaimEpoch(ctx(t), testJob, 2, ""), stores.ErrInvalid)
	_, err := s.Verify(ctx(t), checkpoint(0), "tok", 1)
	requireRejected(t, err, stores.ErrInvalid)
	requireRejected(t, s.Subsume(ctx(t), checkpoint(1), 0), stores.ErrInvalid)
	requireRejected(t, s.CollectSubsumed(ctx(t), checkpoint(1), ""), stores.ErrInvalid)
	requireRejected(t, s.CollectSubsumed(ctx(t), checkpoint(0), "tok"), stores.ErrInvalid)

	assert.True(t, read(t, s, 1).Absent())
	list, err := s.List(ctx(t), testJob)
	require.NoError(t, err)
	assert.Empty(t, list)
	st, err := s.ReadJob(ctx(t), testJob)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), st.Epoch)
}

func withJob(p stores.Publication, cluster, job string) stores.Publication {
	p.JobID = stores.JobID{Cluster: cluster, Job: job}
	return p
}

func withHandle(p stores.Publication, handle string) stores.Publication {
	p.Reference.Handle = handle
	return p
}
