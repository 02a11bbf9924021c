package stores_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// The decisions at the edges the store semantics name: "at or below the
// watermark", "up to attempt N", the same epoch, an epoch's own owner.
// The conformance suite (stores/storetest) drives them through each
// backend; these pin the edges on the decisions themselves.

var (
	now     = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	testJob = stores.JobID{Cluster: "c1", Job: "j1"}
)

func reference(n uint64, token string, attempt uint32) stores.Entry {
	return stores.Entry{Checkpoint: n, Reference: &stores.Reference{Handle: "h", Token: token, Attempt: attempt}}
}

func tombstone(n uint64, token string, upTo uint32, reason stores.Reason) stores.Entry {
	return stores.Entry{Checkpoint: n, Tombstone: &stores.Tombstone{Token: token, FencedUpTo: upTo, Reason: reason, Since: now.Add(-time.Hour)}}
}

func TestDecidePublishEdges(t *testing.T) {
	job := stores.JobState{Epoch: 3, Owner: "jm-3", Watermark: 10}
	pub := func(n uint64, attempt uint32, owner string) stores.Publication {
		return stores.Publication{
			CheckpointID: stores.CheckpointID{JobID: testJob, Checkpoint: n}, Epoch: 3, Owner: owner,
			Reference: stores.Reference{Handle: "h", Token: "tok", Attempt: attempt},
		}
	}
	cases := []struct {
		name  string
		job   stores.JobState
		cur   stores.Entry
		p     stores.Publication
		err   error // nil: the reference is written
		write bool
		msg   string
	}{
		{"above the watermark", job, stores.Entry{Checkpoint: 11}, pub(11, 1, "jm-3"), nil, true, ""},
		{"at the watermark", job, stores.Entry{Checkpoint: 10}, pub(10, 1, "jm-3"), stores.ErrBelowWatermark, false, "watermark 10"},
		{"without an owner, on the epoch alone", job, stores.Entry{Checkpoint: 11}, pub(11, 1, ""), nil, true, ""},
		{"under another owner", job, stores.Entry{Checkpoint: 11}, pub(11, 1, "intruder"), stores.ErrStaleEpoch, false, `claimed by "jm-3", not "intruder"`},
		{"a job forgotten and not claimed again", stores.JobState{Epoch: 3, ForgottenEpoch: 3}, stores.Entry{Checkpoint: 11}, pub(11, 1, ""), stores.ErrStaleEpoch, false, "job not claimed (epochs above 3 may claim it)"},
		{"a deposed epoch", stores.JobState{Epoch: 4, Owner: "jm-4"}, stores.Entry{Checkpoint: 11}, pub(11, 1, ""), stores.ErrStaleEpoch, false, "epoch 3, current 4"},
		{"its own token's retry", job, reference(11, "tok", 1), pub(11, 2, "jm-3"), nil, false, ""},
		{"another token's reference", job, reference(11, "other", 1), pub(11, 1, "jm-3"), stores.ErrConflict, false, ""},
		{"another token's fence", job, tombstone(11, "other", 9, stores.ReasonFenced), pub(11, 1, "jm-3"), stores.ErrConflict, false, ""},
		{"its own fence up to the attempt", job, tombstone(11, "tok", 2, stores.ReasonFenced), pub(11, 2, "jm-3"), stores.ErrFenced, false, ""},
		{"its own fence below the attempt", job, tombstone(11, "tok", 2, stores.ReasonFenced), pub(11, 3, "jm-3"), nil, true, ""},
		{"its own removed reference", job, tombstone(11, "tok", 2, stores.ReasonQuarantined), pub(11, 3, "jm-3"), stores.ErrFenced, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, err := stores.DecidePublish(c.job, c.cur, c.p)
			if c.err != nil {
				assert.ErrorIs(t, err, c.err)
				assert.ErrorContains(t, err, c.msg)
				assert.Nil(t, w)
				return
			}
			require.NoError(t, err)
			if !c.write {
				assert.Nil(t, w, "nothing to write")
				return
			}
			require.NotNil(t, w)
			assert.Equal(t, stores.Entry{Checkpoint: c.p.Checkpoint, Reference: &c.p.Reference}, *w)
		})
	}
}

func TestDecideVerifyEdges(t *testing.T) {
	cases := []struct {
		name    string
		cur     stores.Entry
		attempt uint32
		verdict stores.Verdict
		fence   uint32 // the attempt the written fence covers; 0: nothing written
	}{
		{"its own reference", reference(5, "tok", 2), 3, stores.Present, 0},
		{"its own subsumed reference", tombstone(5, "tok", 2, stores.ReasonSubsumed), 3, stores.Present, 0},
		{"another token's reference", reference(5, "other", 1), 3, stores.Absent, 0},
		{"another token's fence", tombstone(5, "other", 9, stores.ReasonFenced), 3, stores.Absent, 0},
		{"its own fence up to the attempt", tombstone(5, "tok", 3, stores.ReasonFenced), 3, stores.Absent, 0},
		{"its own fence above the attempt", tombstone(5, "tok", 4, stores.ReasonFenced), 3, stores.Absent, 0},
		{"its own fence below the attempt", tombstone(5, "tok", 2, stores.ReasonFenced), 3, stores.Absent, 3},
		{"an absent key", stores.Entry{Checkpoint: 5}, 3, stores.Absent, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, w := stores.DecideVerify(c.cur, "tok", c.attempt, now)
			assert.Equal(t, c.verdict, v)
			if c.fence == 0 {
				assert.Nil(t, w, "the key already answers; nothing is written")
				return
			}
			require.NotNil(t, w)
			require.NotNil(t, w.Tombstone)
			assert.Equal(t, stores.Tombstone{Token: "tok", FencedUpTo: c.fence, Reason: stores.ReasonFenced, Since: now}, *w.Tombstone)
		})
	}
}

func TestDecideSubsumeEdges(t *testing.T) {
	job := stores.JobState{Epoch: 3, Owner: "jm-3", Watermark: 10}
	cases := []struct {
		name      string
		cur       stores.Entry
		id, epoch uint64
		err       error
		reason    stores.Reason // the tombstone written; "": none
		token     string
		watermark uint64 // the watermark written; 0: no state written
	}{
		{"an absent key at the watermark: already done, whatever the epoch", stores.Entry{Checkpoint: 10}, 10, 2, nil, "", "", 0},
		{"a tombstone below the watermark: already done", tombstone(7, "tok", 1, stores.ReasonSubsumed), 7, 2, nil, "", "", 0},
		{"an absent key above the watermark", stores.Entry{Checkpoint: 11}, 11, 3, nil, stores.ReasonSubsumed, "", 11},
		{"an absent key above the watermark, a stale epoch", stores.Entry{Checkpoint: 11}, 11, 2, stores.ErrStaleEpoch, "", "", 0},
		{"a reference above the watermark", reference(12, "tok", 2), 12, 3, nil, stores.ReasonSubsumed, "tok", 12},
		{"a reference at the watermark", reference(10, "tok", 2), 10, 3, nil, stores.ReasonSubsumed, "tok", 10},
		{"a reference below the watermark keeps it", reference(8, "tok", 2), 8, 3, nil, stores.ReasonSubsumed, "tok", 10},
		{"a reference, a stale epoch", reference(12, "tok", 2), 12, 2, stores.ErrStaleEpoch, "", "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, next, err := stores.DecideSubsume(job, c.cur, c.id, c.epoch, now)
			if c.err != nil {
				assert.ErrorIs(t, err, c.err)
				return
			}
			require.NoError(t, err)
			if c.watermark == 0 {
				assert.Nil(t, e)
				assert.Nil(t, next)
				return
			}
			require.NotNil(t, next)
			assert.Equal(t, c.watermark, next.Watermark)
			require.NotNil(t, e)
			assert.Equal(t, c.reason, e.Tombstone.Reason)
			assert.Equal(t, c.token, e.Tombstone.Token)
		})
	}
}

func TestDecideClaimEdges(t *testing.T) {
	job := stores.JobState{Epoch: 3, Owner: "jm-3", Watermark: 10}
	retired := stores.JobState{Epoch: 3, Owner: "jm-3", Watermark: 10, Retired: true}
	entries := []stores.Entry{tombstone(12, "tok", 1, stores.ReasonFenced)}
	cases := []struct {
		name  string
		job   stores.JobState
		epoch uint64
		owner string
		err   error
		next  *stores.JobState
	}{
		{"the standing claim again", job, 3, "jm-3", nil, nil},
		{"the standing epoch under another owner", job, 3, "jm-x", stores.ErrStaleEpoch, nil},
		{"a lower epoch", job, 2, "jm-2", stores.ErrStaleEpoch, nil},
		{"a higher epoch", job, 4, "jm-4", nil, &stores.JobState{Epoch: 4, Owner: "jm-4", Watermark: 10}},
		{"a retired job at its epoch", retired, 3, "jm-3", stores.ErrRetired, nil},
		{"a retired job above its epoch: a new incarnation above every key", retired, 4, "jm-4", nil,
			&stores.JobState{Epoch: 4, Owner: "jm-4", Watermark: 12, ForgottenEpoch: 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			next, err := stores.DecideClaim(c.job, entries, c.epoch, c.owner)
			if c.err != nil {
				assert.ErrorIs(t, err, c.err)
				assert.Nil(t, next)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.next, next)
		})
	}
}

func TestDecideCollectEdges(t *testing.T) {
	olderThan := now
	young := tombstone(9, "tok", 1, stores.ReasonSubsumed)
	young.Tombstone.Since = now
	entries := []stores.Entry{
		tombstone(9, "tok", 1, stores.ReasonSubsumed),
		tombstone(10, "tok", 1, stores.ReasonFenced),
		tombstone(11, "tok", 1, stores.ReasonFenced),
	}
	claimed := stores.JobState{Epoch: 3, Owner: "jm-3", Watermark: 10}
	drop, next := stores.DecideCollect(claimed, entries, olderThan)
	assert.Equal(t, []uint64{9, 10}, drop, "at or below the watermark, not above")
	assert.Nil(t, next)

	retired := claimed
	retired.Retired = true
	drop, next = stores.DecideCollect(retired, entries, olderThan)
	assert.Equal(t, []uint64{9, 10, 11}, drop, "a retired job's all")
	require.NotNil(t, next, "none left: forgotten")
	assert.Equal(t, stores.JobState{Epoch: 3, ForgottenEpoch: 3}, *next)

	kept := tombstone(8, "tok", 1, stores.ReasonRetained)
	for name, left := range map[string]stores.Entry{"a kept record": kept, "a young tombstone": young, "a reference": reference(12, "tok", 1)} {
		drop, next = stores.DecideCollect(retired, append([]stores.Entry{left}, entries...), olderThan)
		assert.Equal(t, []uint64{9, 10, 11}, drop, name)
		assert.Nil(t, next, "%s left: the job stays retired", name)
	}
}

func TestDecideCollectSubsumedEdges(t *testing.T) {
	job := stores.JobState{Epoch: 3, Owner: "jm-3", Watermark: 10}
	cases := []struct {
		name string
		cur  stores.Entry
		del  bool
		err  error
	}{
		{"its subsumed tombstone at the watermark", tombstone(10, "tok", 1, stores.ReasonSubsumed), true, nil},
		{"its subsumed tombstone below the watermark", tombstone(9, "tok", 1, stores.ReasonSubsumed), true, nil},
		{"its subsumed tombstone above the watermark", tombstone(11, "tok", 1, stores.ReasonSubsumed), false, stores.ErrConflict},
		{"nothing: already collected", stores.Entry{Checkpoint: 10}, false, nil},
		{"another token's subsumed tombstone", tombstone(10, "other", 1, stores.ReasonSubsumed), false, stores.ErrConflict},
		{"its own tombstone of another reason", tombstone(10, "tok", 1, stores.ReasonRetired), false, stores.ErrConflict},
		{"a reference", reference(10, "tok", 1), false, stores.ErrConflict},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			del, err := stores.DecideCollectSubsumed(job, c.cur, "tok")
			assert.Equal(t, c.del, del)
			if c.err != nil {
				assert.ErrorIs(t, err, c.err)
				return
			}
			assert.NoError(t, err)
		})
	}
}

func TestDecideReleaseAndQuarantine(t *testing.T) {
	release := []struct {
		name    string
		cur     stores.Entry
		err     error
		written bool
	}{
		{"its retained record", tombstone(5, "tok", 1, stores.ReasonRetained), nil, true},
		{"its savepoint record", tombstone(5, "tok", 1, stores.ReasonSavepoint), nil, true},
		{"already released", tombstone(5, "tok", 1, stores.ReasonRetired), nil, false},
		{"another token's record", tombstone(5, "other", 1, stores.ReasonRetained), stores.ErrConflict, false},
		{"not a kept record", tombstone(5, "tok", 1, stores.ReasonSubsumed), stores.ErrConflict, false},
		{"no record", stores.Entry{Checkpoint: 5}, stores.ErrConflict, false},
		{"a reference", reference(5, "tok", 1), stores.ErrConflict, false},
	}
	for _, c := range release {
		t.Run("release "+c.name, func(t *testing.T) {
			w, err := stores.DecideRelease(c.cur, "tok", now)
			if c.err != nil {
				assert.ErrorIs(t, err, c.err)
				return
			}
			require.NoError(t, err)
			if !c.written {
				assert.Nil(t, w)
				return
			}
			require.NotNil(t, w)
			assert.Equal(t, stores.ReasonRetired, w.Tombstone.Reason)
			assert.Equal(t, now, w.Tombstone.Since)
			assert.Equal(t, "tok", w.Tombstone.Token)
		})
	}
	quarantine := []struct {
		name    string
		cur     stores.Entry
		err     error
		written bool
	}{
		{"its reference", reference(5, "tok", 2), nil, true},
		{"already quarantined", tombstone(5, "tok", 2, stores.ReasonQuarantined), nil, false},
		{"its reference removed otherwise", tombstone(5, "tok", 2, stores.ReasonSubsumed), stores.ErrConflict, false},
		{"another token's quarantine", tombstone(5, "other", 2, stores.ReasonQuarantined), stores.ErrConflict, false},
		{"another token's reference", reference(5, "other", 2), stores.ErrConflict, false},
		{"nothing", stores.Entry{Checkpoint: 5}, stores.ErrConflict, false},
	}
	for _, c := range quarantine {
		t.Run("quarantine "+c.name, func(t *testing.T) {
			w, err := stores.DecideQuarantine(c.cur, "tok", now)
			if c.err != nil {
				assert.ErrorIs(t, err, c.err)
				return
			}
			require.NoError(t, err)
			if !c.written {
				assert.Nil(t, w)
				return
			}
			require.NotNil(t, w)
			assert.Equal(t, stores.Tombstone{Token: "tok", FencedUpTo: 2, Reason: stores.ReasonQuarantined, Since: now}, *w.Tombstone)
		})
	}
}

// A publication is valid only when every field is: the owner it names
// does not spare its reference the checks.
func TestPublicationValidate(t *testing.T) {
	valid := stores.Publication{
		CheckpointID: stores.CheckpointID{JobID: testJob, Checkpoint: 5}, Epoch: 3, Owner: "jm-3",
		Reference: stores.Reference{Handle: "h", Token: "tok", Attempt: 1},
	}
	assert.NoError(t, valid.Validate())
	noOwner := valid
	noOwner.Owner = ""
	assert.NoError(t, noOwner.Validate(), "no owner: decided on the epoch alone")
	for name, p := range map[string]func(p *stores.Publication){
		"checkpoint 0":                 func(p *stores.Publication) { p.Checkpoint = 0 },
		"epoch 0":                      func(p *stores.Publication) { p.Epoch = 0 },
		"an owner with a control char": func(p *stores.Publication) { p.Owner = "jm\x003" },
		"an owner, no handle":          func(p *stores.Publication) { p.Reference.Handle = "" },
		"an owner, attempt 0":          func(p *stores.Publication) { p.Reference.Attempt = 0 },
		"no owner, no token":           func(p *stores.Publication) { p.Owner, p.Reference.Token = "", "" },
	} {
		bad := valid
		p(&bad)
		assert.ErrorIs(t, bad.Validate(), stores.ErrInvalid, name)
	}
}

// A retirement tombstones every reference (a savepoint's as its record,
// the others retired or retained as the operator asked), leaves other
// tombstones as they are, and raises the watermark above every key, never
// lowering it.
func TestDecideRetireEdges(t *testing.T) {
	job := stores.JobState{Epoch: 3, Owner: "jm-3", Watermark: 10}
	sp := reference(12, "tok-12", 2)
	sp.Reference.Savepoint = true
	cases := []struct {
		name      string
		entries   []stores.Entry
		keep      bool
		reasons   map[uint64]stores.Reason
		watermark uint64
	}{
		{"keys above the watermark", []stores.Entry{tombstone(5, "tok-5", 1, stores.ReasonSubsumed), reference(8, "tok-8", 1), sp},
			false, map[uint64]stores.Reason{8: stores.ReasonRetired, 12: stores.ReasonSavepoint}, 12},
		{"kept for the operator", []stores.Entry{reference(8, "tok-8", 1), sp},
			true, map[uint64]stores.Reason{8: stores.ReasonRetained, 12: stores.ReasonSavepoint}, 12},
		{"every key below the watermark", []stores.Entry{tombstone(5, "tok-5", 1, stores.ReasonSubsumed), reference(8, "tok-8", 1)},
			false, map[uint64]stores.Reason{8: stores.ReasonRetired}, 10},
		{"no keys", nil, false, map[uint64]stores.Reason{}, 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			writes, next, err := stores.DecideRetire(job, c.entries, 3, c.keep, now)
			require.NoError(t, err)
			require.NotNil(t, next)
			assert.Equal(t, stores.JobState{Epoch: 3, Owner: "jm-3", Watermark: c.watermark, Retired: true}, *next)
			got := map[uint64]stores.Reason{}
			for _, w := range writes {
				require.NotNil(t, w.Tombstone)
				got[w.Checkpoint] = w.Tombstone.Reason
				assert.Equal(t, now, w.Tombstone.Since)
			}
			assert.Equal(t, c.reasons, got)
		})
	}

	_, _, err := stores.DecideRetire(job, nil, 2, false, now)
	assert.ErrorIs(t, err, stores.ErrStaleEpoch)
	retired := job
	retired.Retired = true
	writes, next, err := stores.DecideRetire(retired, []stores.Entry{reference(11, "tok", 1)}, 3, false, now)
	require.NoError(t, err)
	assert.Nil(t, writes)
	assert.Nil(t, next, "already retired")
}
