package stores_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

func TestStandingAndDecideFence(t *testing.T) {
	claimed := stores.JobState{Epoch: 3, Owner: "jm-3", Watermark: 10, ForgottenEpoch: 1}
	forgotten := stores.JobState{Epoch: 3, ForgottenEpoch: 3}
	cases := []struct {
		name       string
		job        stores.JobState
		epoch, chk uint64
		standing   stores.Standing
		mayFence   bool
		owner      string
	}{
		{"the standing claim, above the watermark", claimed, 3, 11, stores.EpochStanding, true, "jm-3"},
		{"the standing epoch without an owner (recorded before owners)", claimed, 3, 11, stores.EpochStanding, true, ""},
		{"the standing epoch under another owner, above the watermark", claimed, 3, 11, stores.EpochForeign, false, "intruder"},
		{"the standing epoch under another owner, at the watermark", claimed, 3, 10, stores.EpochForeign, false, "intruder"},
		{"deposed, above the watermark", claimed, 2, 11, stores.EpochDeposed, false, ""},
		{"deposed, at the watermark", claimed, 2, 10, stores.EpochDeposed, false, ""},
		{"unclaimed, above the watermark", claimed, 99, 11, stores.EpochUnclaimed, false, ""},
		{"unclaimed, below the watermark", claimed, 99, 4, stores.EpochUnclaimed, false, ""},
		{"the standing claim, below the watermark", claimed, 3, 4, stores.EpochStanding, true, "jm-3"},
		{"the standing claim of a retired job", stores.JobState{Epoch: 3, Owner: "jm-3", Watermark: 10, Retired: true}, 3, 4, stores.EpochStanding, true, "jm-3"},
		{"deposed, the job retired", stores.JobState{Epoch: 3, Owner: "jm-3", Watermark: 10, Retired: true}, 2, 11, stores.EpochDeposed, false, ""},
		{"the forgotten incarnation, even below the watermark", claimed, 1, 4, stores.EpochForgotten, false, ""},
		{"a forgotten job's last epoch", forgotten, 3, 1, stores.EpochForgotten, false, ""},
		{"above a forgotten job's last epoch", forgotten, 4, 1, stores.EpochUnclaimed, false, ""},
		{"a job never claimed", stores.JobState{}, 1, 1, stores.EpochUnclaimed, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.standing, c.job.Standing(c.epoch, c.owner))
			err := stores.DecideFence(c.job, c.epoch, c.owner, c.chk)
			if c.mayFence {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, stores.ErrNotStanding)
			assert.Equal(t, stores.Unknown, stores.OutcomeOf(err), "a decision of the activities, never a store's rejection")
		})
	}
}

func TestDecideClaimant(t *testing.T) {
	claimed := stores.JobState{Epoch: 3, Owner: "jm-3", Watermark: 10}
	assert.NoError(t, stores.DecideClaimant(claimed, 3, "jm-3"))
	assert.NoError(t, stores.DecideClaimant(claimed, 2, ""), "no owner: the store's epoch condition decides")
	for _, c := range []struct {
		epoch uint64
		owner string
		want  string
	}{
		{3, "intruder", `epoch 3 is claimed by "jm-3", not "intruder"`},
		{2, "jm-2", "epoch 2, current 3"},
		{4, "jm-4", "epoch 4, current 3"},
	} {
		err := stores.DecideClaimant(claimed, c.epoch, c.owner)
		assert.ErrorIs(t, err, stores.ErrStaleEpoch)
		assert.ErrorContains(t, err, c.want)
	}
}

// A refused fence says why in the operator's terms: the party's epoch (and
// its owner, when it names one), what that epoch is to the job, and the
// job's standing claim, or that it has none.
func TestDecideFenceSaysWhy(t *testing.T) {
	claimed := stores.JobState{Epoch: 3, Owner: "jm-3", Watermark: 10, ForgottenEpoch: 1}
	for _, c := range []struct {
		job   stores.JobState
		epoch uint64
		owner string
		want  string
	}{
		{claimed, 3, "intruder", `epoch 3 of "intruder" is foreign (the standing claim is epoch 3 by "jm-3"): checkpoint 11's directory`},
		{claimed, 2, "", `epoch 2 is deposed (the standing claim is epoch 3 by "jm-3")`},
		{claimed, 4, "jm-4", `epoch 4 of "jm-4" is unclaimed (the standing claim is epoch 3 by "jm-3")`},
		{stores.JobState{}, 1, "", "epoch 1 is unclaimed (the job stands unclaimed at epoch 0)"},
		{claimed, 1, "", "epoch 1 belongs to the job ID's forgotten incarnation (epochs up to 1)"},
	} {
		err := stores.DecideFence(c.job, c.epoch, c.owner, 11)
		assert.ErrorIs(t, err, stores.ErrNotStanding)
		assert.ErrorContains(t, err, c.want)
	}
}
