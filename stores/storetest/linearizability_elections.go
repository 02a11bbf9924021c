package storetest

import (
	"sync"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// elections is what the clients learn outside the store: the epochs their
// claims won, as a job manager learns its epoch from a leader election
// before it calls the store. A client then sometimes calls with the newest
// epoch another client's claim has completed, without reading the store
// first, so a backend must decide on a state no older than that claim: one
// that decides on a replica lagging behind rejects the call as stale,
// a history no sequential order allows.
type elections struct {
	mu  sync.Mutex
	won map[stores.JobID]uint64
}

func newElections() *elections { return &elections{won: map[stores.JobID]uint64{}} }

// record notes that a claim of epoch completed.
func (e *elections) record(job stores.JobID, epoch uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.won[job] = max(e.won[job], epoch)
}

// latest is the newest epoch a completed claim of job won, 0 if none.
func (e *elections) latest(job stores.JobID) uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.won[job]
}
