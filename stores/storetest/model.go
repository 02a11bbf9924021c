package storetest

import (
	"time"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// The state of the sequential specification that RunLinearizabilityTests
// holds a backend to: one job's state and its keys, as plain comparable
// values, so that porcupine can compare and cache states with ==.

// modelKeys is how many checkpoint keys (1..modelKeys) each job of the
// workload uses: few, so that concurrent calls collide on them.
const modelKeys = 12

// modelNow is the clock of every decision the model takes. Since (when a
// tombstone was written, by the backend's clock) is the one field the model
// cannot know: the model writes it as modelNow and every entry read from a
// backend has it zeroed (slotOf), so it never takes part in equality. The
// one decision that reads it, DecideCollect, is asked with a cutoff that
// makes it irrelevant: see call.cutoff.
var modelNow = time.Time{}

// slot is one key's entry without pointers and with Since zeroed.
type slot struct {
	Published  bool
	Reference  stores.Reference
	Tombstoned bool
	Tombstone  stores.Tombstone
}

func slotOf(e stores.Entry) slot {
	var s slot
	if e.Reference != nil {
		s.Published, s.Reference = true, *e.Reference
	}
	if e.Tombstone != nil {
		s.Tombstoned, s.Tombstone = true, *e.Tombstone
		s.Tombstone.Since = time.Time{}
	}
	return s
}

// entry is the slot as the stores.Entry of checkpoint id.
func (s slot) entry(id uint64) stores.Entry {
	e := stores.Entry{Checkpoint: id}
	if s.Published {
		ref := s.Reference
		e.Reference = &ref
	}
	if s.Tombstoned {
		tomb := s.Tombstone
		e.Tombstone = &tomb
	}
	return e
}

// keys is a job's key space indexed by checkpoint ID; index 0 is unused.
type keys [modelKeys + 1]slot

// jobModel is the model's state of one job. Every call of the workload
// names one job, so porcupine checks each job's history on its own.
type jobModel struct {
	Job  stores.JobState
	Keys keys
}

// entries returns every key that is not absent, in checkpoint order, as a
// backend hands them to DecideRetire and DecideCollect.
func (m jobModel) entries() []stores.Entry {
	var all []stores.Entry
	for n := uint64(1); n <= modelKeys; n++ {
		if m.Keys[n] != (slot{}) {
			all = append(all, m.Keys[n].entry(n))
		}
	}
	return all
}

// published keeps the published references only, as List answers.
func (m jobModel) published() keys {
	var ks keys
	for n, s := range m.Keys {
		if s.Published {
			ks[n] = s
		}
	}
	return ks
}

// with writes a decided entry; nil writes nothing.
func (m jobModel) with(e *stores.Entry) jobModel {
	if e != nil {
		m.Keys[e.Checkpoint] = slotOf(*e)
	}
	return m
}

// withJob writes a decided job state; nil writes nothing.
func (m jobModel) withJob(next *stores.JobState) jobModel {
	if next != nil {
		m.Job = *next
	}
	return m
}
