package stores_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// A job state is consistent exactly when the decisions can produce it: a
// job never claimed or forgotten has no owner, no watermark, is not
// retired and stands at its forgotten floor; a claimed one stands above
// that floor under a valid owner. Anything else is refused as corrupt by
// the encoder and the decoder alike.
func TestJobStateConsistent(t *testing.T) {
	cases := []struct {
		name string
		job  stores.JobState
		ok   bool
	}{
		{"never claimed", stores.JobState{}, true},
		{"forgotten", stores.JobState{Epoch: 4, ForgottenEpoch: 4}, true},
		{"claimed", stores.JobState{Epoch: 7, Owner: "jm-7", Watermark: 3}, true},
		{"retired", stores.JobState{Epoch: 7, Owner: "jm-7", Watermark: 3, Retired: true}, true},
		{"claimed just above the forgotten epoch", stores.JobState{Epoch: 5, Owner: "jm-5", ForgottenEpoch: 4}, true},
		{"retired without an owner", stores.JobState{Retired: true}, false},
		{"an epoch without an owner", stores.JobState{Epoch: 7}, false},
		{"a watermark without an owner", stores.JobState{Watermark: 3}, false},
		{"a watermark without an owner, forgotten", stores.JobState{Epoch: 4, ForgottenEpoch: 4, Watermark: 3}, false},
		{"an owner with a control character", stores.JobState{Epoch: 7, Owner: "jm\n7"}, false},
		{"an owner too long", stores.JobState{Epoch: 7, Owner: strings.Repeat("o", stores.MaxOwnerLength+1)}, false},
		{"claimed at the forgotten epoch", stores.JobState{Epoch: 4, Owner: "jm-4", ForgottenEpoch: 4}, false},
		{"claimed below the forgotten epoch", stores.JobState{Epoch: 3, Owner: "jm-3", ForgottenEpoch: 4}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := stores.EncodeJobState(c.job)
			if !c.ok {
				assert.ErrorIs(t, c.job.Consistent(), stores.ErrCorruptState)
				assert.ErrorIs(t, err, stores.ErrCorruptState, "the encoder writes no state the decoder refuses")
				return
			}
			assert.NoError(t, c.job.Consistent())
			require.NoError(t, err)
			got, err := stores.DecodeJobState(b)
			require.NoError(t, err)
			assert.Equal(t, c.job, got, "what this program writes it reads back")
		})
	}
}

// The decoder refuses what no encoder wrote, whatever the version.
func TestDecodeJobStateRefuses(t *testing.T) {
	for name, data := range map[string]string{
		"version 2, a watermark without an owner":   `{"v":2,"epoch":0,"owner":"","watermark":3,"retired":false,"forgottenEpoch":0}`,
		"version 2, a null field":                   `{"v":2,"epoch":7,"owner":null,"watermark":0,"retired":false,"forgottenEpoch":0}`,
		"version 1, an optional field null":         `{"epoch":7,"owner":"jm-7","watermark":0,"retired":null}`,
		"version 1, a forgotten epoch of zero":      `{"epoch":7,"owner":"jm-7","watermark":0,"forgottenEpoch":0}`,
		"version 1, a watermark without an owner":   `{"epoch":0,"watermark":3}`,
		"version 1, a version 2 field":              `{"epoch":7,"owner":"jm-7","watermark":0,"v":1}`,
		"version 2 with a version 1 field left out": `{"v":2,"epoch":0,"watermark":0}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := stores.DecodeJobState([]byte(data))
			assert.ErrorIs(t, err, stores.ErrCorruptState)
		})
	}
}
