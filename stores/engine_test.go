package stores_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// The engine's loop over a scripted driver: the driver answers each call
// from its script, so a test names exactly which pass loses. The backends'
// own behaviour is held by the conformance and linearizability suites on
// the real servers; this pins what the engine does with a driver's answers.

type scriptedDriver struct {
	state   stores.JobState
	key     stores.Entry
	commits []error // answers of successive commits; nil once exhausted
	settles []error // answers of successive settles
	loads   int
	written []stores.Change
}

func (d *scriptedDriver) Load(_ context.Context, job stores.JobID, scope stores.Scope) (stores.Snapshot, error) {
	d.loads++
	snap := stores.Snapshot{Job: job, State: d.state}
	if scope.Key() != 0 {
		e := d.key
		e.Checkpoint = scope.Key()
		snap.Entries = []stores.Entry{e}
	}
	return snap, nil
}

func (d *scriptedDriver) Commit(_ context.Context, _ stores.Snapshot, c stores.Change) error {
	var err error
	if len(d.commits) > 0 {
		err, d.commits = d.commits[0], d.commits[1:]
	}
	if err == nil {
		d.written = append(d.written, c)
	}
	return err
}

func (d *scriptedDriver) Settle(context.Context, stores.Snapshot) error {
	var err error
	if len(d.settles) > 0 {
		err, d.settles = d.settles[0], d.settles[1:]
	}
	return err
}

func publication(n uint64) stores.Publication {
	return stores.Publication{
		CheckpointID: stores.CheckpointID{JobID: testJob, Checkpoint: n}, Epoch: 1, Owner: "jm-1",
		Reference: stores.Reference{Handle: "h", Token: "tok", Attempt: 1},
	}
}

func TestEngineDecidesAgainAfterALostCompareAndSet(t *testing.T) {
	d := &scriptedDriver{state: stores.JobState{Epoch: 1, Owner: "jm-1"}, commits: []error{stores.ErrRaced, stores.ErrRaced}}
	e := stores.NewEngine(d, 4)

	require.NoError(t, e.Publish(t.Context(), publication(5)))
	assert.Equal(t, 3, d.loads, "a load for every pass")
	require.Len(t, d.written, 1)
	assert.True(t, d.written[0].LeaveFenceRoom, "a publish leaves room for a later fence")
}

func TestEngineOutOfPassesIsUnknown(t *testing.T) {
	d := &scriptedDriver{state: stores.JobState{Epoch: 1, Owner: "jm-1"},
		commits: []error{stores.ErrRaced, &stores.ThrottledError{Err: errors.New("429")}, stores.ErrRaced}}
	e := stores.NewEngine(d, 3)

	err := e.Publish(t.Context(), publication(5))
	assert.Equal(t, stores.Unknown, stores.OutcomeOf(err), "nothing was written, but a count is not trusted: %v", err)
	assert.ErrorIs(t, err, stores.ErrContention)
	assert.Equal(t, 3, d.loads)
	assert.Empty(t, d.written)
}

func TestEnginePassesADriversAnswerThroughUnretried(t *testing.T) {
	for _, tc := range []struct {
		name    string
		err     error
		outcome stores.Outcome
	}{
		{"unknown", stores.Unknownf(errors.New("connection reset"), "write"), stores.Unknown},
		{"forbidden", stores.ErrForbidden, stores.Rejected},
		{"too large", stores.ErrTooLarge, stores.Rejected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &scriptedDriver{state: stores.JobState{Epoch: 1, Owner: "jm-1"}, commits: []error{tc.err}}
			err := stores.NewEngine(d, 4).Publish(t.Context(), publication(5))
			assert.Equal(t, tc.outcome, stores.OutcomeOf(err), "%v", err)
			assert.ErrorIs(t, err, tc.err)
			assert.Equal(t, 1, d.loads, "no second pass")
		})
	}
}

// A decision that writes nothing stands only once the driver shows the
// snapshot unchanged: a rejection read across a concurrent change is
// decided again.
func TestEngineSettlesADecisionThatWritesNothing(t *testing.T) {
	d := &scriptedDriver{state: stores.JobState{Epoch: 2, Owner: "jm-2"}, settles: []error{stores.ErrRaced}}
	err := stores.NewEngine(d, 4).Publish(t.Context(), publication(5))
	assert.ErrorIs(t, err, stores.ErrStaleEpoch)
	assert.Equal(t, 2, d.loads, "the first rejection was read across a change")
	assert.Empty(t, d.written)
}

// Verify decides on the key alone, which every load reads at one moment:
// no settle is asked for.
func TestEngineVerifyDecidesOnTheKeyAlone(t *testing.T) {
	d := &scriptedDriver{key: reference(0, "tok", 1), settles: []error{errors.New("settle must not be asked")}}
	v, err := stores.NewEngine(d, 4).Verify(t.Context(), stores.CheckpointID{JobID: testJob, Checkpoint: 5}, "tok", 1)
	require.NoError(t, err)
	assert.Equal(t, stores.Present, v)
}

func TestEngineValidatesBeforeLoading(t *testing.T) {
	d := &scriptedDriver{}
	e := stores.NewEngine(d, 4)
	err := e.ClaimEpoch(t.Context(), testJob, 0, "jm-1")
	assert.ErrorIs(t, err, stores.ErrInvalid)
	_, err = e.Verify(t.Context(), stores.CheckpointID{JobID: testJob, Checkpoint: 5}, "", 1)
	assert.ErrorIs(t, err, stores.ErrInvalid)
	assert.Zero(t, d.loads, "nothing read for bad input")
}
