package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// inventory is the backend's stores.Inventory: every backend implements it.
func inventory(t *testing.T, s stores.ReferenceStore) stores.Inventory {
	t.Helper()
	inv, ok := s.(stores.Inventory)
	require.True(t, ok, "%T does not implement stores.Inventory", s)
	return inv
}

func listJobs(t *testing.T, s stores.ReferenceStore, cluster string) []stores.JobID {
	t.Helper()
	jobs, err := inventory(t, s).ListJobs(ctx(t), cluster)
	require.NoError(t, err)
	return jobs
}

func listEntries(t *testing.T, s stores.ReferenceStore, job stores.JobID) []stores.Entry {
	t.Helper()
	all, err := s.ListEntries(ctx(t), job)
	require.NoError(t, err)
	return all
}

// requireSince asserts a tombstone's Since lies in [before, after], give or
// take a second of clock granularity.
func requireSince(t *testing.T, e stores.Entry, before, after time.Time) {
	t.Helper()
	require.NotNil(t, e.Tombstone, "checkpoint %d", e.Checkpoint)
	assert.WithinRange(t, e.Tombstone.Since, before.Add(-time.Second), after.Add(time.Second))
}

// ListJobs names every job of the cluster the store knows, sorted: claimed
// ones and those known only by a fence; never another cluster's, never a
// forgotten one.
func testListJobs(t *testing.T, h Harness) {
	s := h.Open(t)
	assert.Empty(t, listJobs(t, s, testJob.Cluster), "an empty store lists nothing")

	claim(t, s, 1)
	second := stores.JobID{Cluster: testJob.Cluster, Job: "b-job"}
	require.NoError(t, s.ClaimEpoch(ctx(t), second, 3, "jm-3"))
	elsewhere := stores.JobID{Cluster: "other-cluster", Job: testJob.Job}
	require.NoError(t, s.ClaimEpoch(ctx(t), elsewhere, 1, "jm-1"))
	fencedOnly := stores.JobID{Cluster: testJob.Cluster, Job: "fenced-only"}
	v, err := s.Verify(ctx(t), stores.CheckpointID{JobID: fencedOnly, Checkpoint: 4}, "tok", 1)
	require.NoError(t, err)
	require.Equal(t, stores.Absent, v)

	forgotten := stores.JobID{Cluster: testJob.Cluster, Job: "forgotten"}
	require.NoError(t, s.ClaimEpoch(ctx(t), forgotten, 1, "jm-1"))
	require.NoError(t, s.Publish(ctx(t), stores.Publication{
		CheckpointID: stores.CheckpointID{JobID: forgotten, Checkpoint: 1}, Epoch: 1,
		Reference: stores.Reference{Handle: "h", Token: "tok", Attempt: 1},
	}))
	require.NoError(t, s.Retire(ctx(t), forgotten, 1, false))
	n, err := s.CollectTombstones(ctx(t), forgotten, now().Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, 1, n)

	want := []stores.JobID{testJob, second, fencedOnly}
	assert.Equal(t, want, listJobs(t, s, testJob.Cluster))
	assert.Equal(t, want, listJobs(t, h.Open(t), testJob.Cluster), "another client sees the same")
	assert.Equal(t, []stores.JobID{elsewhere}, listJobs(t, s, elsewhere.Cluster))
	assert.Empty(t, listJobs(t, s, "no-such-cluster"))

	for _, bad := range []string{"", "a/b", "Upper", "-x"} {
		_, err := inventory(t, s).ListJobs(ctx(t), bad)
		requireRejected(t, err, stores.ErrInvalid)
	}
}

// ListEntries returns every key, references and tombstones with their
// reasons, tokens and Since, in checkpoint order; List still returns only
// the references.
func testListEntries(t *testing.T, h Harness) {
	s := h.Open(t)
	claim(t, s, 1)
	before := now()
	for _, n := range []uint64{12, 1, 3} {
		publish(t, s, publication(n, 1, "tok", 1))
	}
	assert.Equal(t, stores.Absent, verify(t, s, 7, "fenced", 2))
	require.NoError(t, s.Subsume(ctx(t), checkpoint(1), 1))
	after := now()

	all := listEntries(t, h.Open(t), testJob)
	var ids []uint64
	for _, e := range all {
		ids = append(ids, e.Checkpoint)
	}
	require.Equal(t, []uint64{1, 3, 7, 12}, ids, "checkpoint order, numeric not lexical")

	requireSince(t, all[0], before, after)
	assert.Equal(t, stores.ReasonSubsumed, all[0].Tombstone.Reason)
	assert.Equal(t, "tok", all[0].Tombstone.Token)
	require.NotNil(t, all[1].Reference)
	assert.Equal(t, publication(3, 1, "tok", 1).Reference, *all[1].Reference)
	requireSince(t, all[2], before, after)
	assert.Equal(t, stores.Tombstone{Token: "fenced", FencedUpTo: 2, Reason: stores.ReasonFenced, Since: all[2].Tombstone.Since}, *all[2].Tombstone)
	assert.NotNil(t, all[3].Reference)
	for _, e := range all {
		assert.Equal(t, read(t, s, e.Checkpoint), e, "ListEntries agrees with Read on checkpoint %d", e.Checkpoint)
	}

	list, err := s.List(ctx(t), testJob)
	require.NoError(t, err)
	assert.Len(t, list, 2, "List skips tombstones")
	assert.Empty(t, listEntries(t, s, stores.JobID{Cluster: testJob.Cluster, Job: "other"}))
	_, err = s.ListEntries(ctx(t), stores.JobID{Cluster: testJob.Cluster, Job: "a/b"})
	requireRejected(t, err, stores.ErrInvalid)
}

// Quarantine turns our reference into a tombstone only while the key holds
// our token; a retry finds its own write; nothing can publish on the key
// afterwards; anything else is Rejected and writes nothing.
func testQuarantine(t *testing.T, h Harness) {
	s := h.Open(t)
	inv := inventory(t, s)
	claim(t, s, 1)
	publish(t, s, publication(1, 1, "tok", 1))
	publish(t, s, publication(2, 1, "two", 1))

	requireRejected(t, inv.Quarantine(ctx(t), checkpoint(1), "other"), stores.ErrConflict)
	assert.True(t, read(t, s, 1).HoldsToken("tok"), "another token's quarantine writes nothing")

	before := now()
	require.NoError(t, inv.Quarantine(ctx(t), checkpoint(1), "tok"))
	quarantined := read(t, s, 1)
	requireSince(t, quarantined, before, now())
	assert.Equal(t, stores.Tombstone{Token: "tok", FencedUpTo: 1, Reason: stores.ReasonQuarantined, Since: quarantined.Tombstone.Since}, *quarantined.Tombstone)

	require.NoError(t, inventory(t, h.Open(t)).Quarantine(ctx(t), checkpoint(1), "tok"), "a retry finds its own write")
	assert.Equal(t, quarantined, read(t, s, 1), "and changes nothing")

	list, err := s.List(ctx(t), testJob)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, uint64(2), list[0].Checkpoint, "a quarantined reference is no longer listed")

	for _, attempt := range []uint32{1, 2} {
		requireRejected(t, s.Publish(ctx(t), publication(1, 1, "tok", attempt)), stores.ErrFenced)
	}
	requireRejected(t, s.Publish(ctx(t), publication(1, 1, "other", 1)), stores.ErrConflict)
	assert.Equal(t, stores.Present, verify(t, s, 1, "tok", 1), "a quarantined reference was published")
	assert.Equal(t, stores.Absent, verify(t, s, 1, "other", 1))
	assert.Equal(t, quarantined, read(t, s, 1), "nothing lands on a quarantined key")

	requireRejected(t, inv.Quarantine(ctx(t), checkpoint(5), "tok"), stores.ErrConflict)
	assert.True(t, read(t, s, 5).Absent(), "an absent key stays absent")

	require.NoError(t, s.Subsume(ctx(t), checkpoint(2), 1))
	subsumed := read(t, s, 2)
	requireRejected(t, inv.Quarantine(ctx(t), checkpoint(2), "two"), stores.ErrConflict)
	assert.Equal(t, subsumed, read(t, s, 2), "another reason's tombstone stays as it is")

	requireRejected(t, inv.Quarantine(ctx(t), checkpoint(0), "tok"), stores.ErrInvalid)
	requireRejected(t, inv.Quarantine(ctx(t), checkpoint(1), ""), stores.ErrInvalid)
	requireRejected(t, inv.Quarantine(ctx(t), checkpoint(1), "tab\there"), stores.ErrInvalid)

	// A quarantined key is collected like any tombstone: at or below the
	// watermark only.
	publish(t, s, publication(3, 1, "three", 1))
	require.NoError(t, inv.Quarantine(ctx(t), checkpoint(3), "three"))
	n, err := s.CollectTombstones(ctx(t), testJob, now().Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, 2, n, "keys 1 and 2, at or below the watermark")
	assert.True(t, read(t, s, 1).Absent())
	assert.Equal(t, stores.ReasonQuarantined, read(t, s, 3).Tombstone.Reason, "above the watermark it stays")
}

// Quarantines of one key racing from several clients all end Published,
// with one tombstone written.
func testConcurrentQuarantine(t *testing.T, h Harness) {
	const clients = 6
	s := h.Open(t)
	claim(t, s, 1)
	publish(t, s, publication(1, 1, "tok", 1))
	invs := make([]stores.Inventory, clients)
	for i := range invs {
		invs[i] = inventory(t, h.Open(t))
	}
	errs := make([]error, clients)
	var wg sync.WaitGroup
	for i, inv := range invs {
		wg.Go(func() { errs[i] = inv.Quarantine(ctx(t), checkpoint(1), "tok") })
	}
	wg.Wait()
	for i, err := range errs {
		assert.NoError(t, err, "client %d", i)
	}
	e := read(t, s, 1)
	require.NotNil(t, e.Tombstone)
	assert.Equal(t, stores.ReasonQuarantined, e.Tombstone.Reason)
}
