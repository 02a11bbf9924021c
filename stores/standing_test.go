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
	}{
		{"the standing claim, above the watermark", claimed, 3, 11, stores.EpochStanding, true},
		{"deposed, above the watermark", claimed, 2, 11, stores.EpochDeposed, false},
		{"deposed, at the watermark", claimed, 2, 10, stores.EpochDeposed, true},
		{"unclaimed, above the watermark", claimed, 99, 11, stores.EpochUnclaimed, false},
		{"unclaimed, below the watermark", claimed, 99, 4, stores.EpochUnclaimed, true},
		{"deposed, the job retired", stores.JobState{Epoch: 3, Owner: "jm-3", Watermark: 10, Retired: true}, 2, 11, stores.EpochDeposed, true},
		{"the forgotten incarnation, even below the watermark", claimed, 1, 4, stores.EpochForgotten, false},
		{"a forgotten job's last epoch", forgotten, 3, 1, stores.EpochForgotten, false},
		{"above a forgotten job's last epoch", forgotten, 4, 1, stores.EpochUnclaimed, false},
		{"a job never claimed", stores.JobState{}, 1, 1, stores.EpochUnclaimed, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.standing, c.job.Standing(c.epoch))
			err := stores.DecideFence(c.job, c.epoch, c.chk)
			if c.mayFence {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, stores.ErrNotStanding)
			assert.Equal(t, stores.Unknown, stores.OutcomeOf(err), "a decision of the activities, never a store's rejection")
		})
	}
}
