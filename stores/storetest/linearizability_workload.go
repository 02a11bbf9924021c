package storetest

import (
	"fmt"
	"math/rand/v2"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// linearizabilityJobs are the workload's jobs, each in a cluster of its
// own so that ListJobs, like every other call, concerns one job.
var linearizabilityJobs = []stores.JobID{{Cluster: "lin-a", Job: "j1"}, {Cluster: "lin-b", Job: "j1"}}

// weights is the call mix. Publishes dominate and Retire is frequent
// enough for jobs to go through whole lives (claim, publish, subsume,
// retire, collect, forget, claim again) within a few hundred calls, with
// publishes of fresh keys racing each retirement.
var weights = []weight{
	{opClaim, 3, false}, {opPublish, 40, false}, {opVerify, 10, false}, {opSubsume, 5, false},
	{opRetire, 7, false}, {opCollect, 5, false}, {opCollectSubsumed, 2, false}, {opQuarantine, 2, true},
	{opRead, 10, false}, {opReadJob, 8, false}, {opList, 4, false},
	{opListEntries, 3, true}, {opListJobs, 2, true},
}

type weight struct {
	kind   opKind
	weight int
	// inventory: a stores.Inventory call, made only on a backend that has it.
	inventory bool
}

// workload picks one client's calls, seeded, steered by what the client
// has learnt from its answers (the epoch to use; a deposed, retired or
// forgotten job to read, collect and claim again), as job managers would,
// so that enough calls succeed to matter.
type workload struct {
	client    int
	rng       *rand.Rand
	inventory bool
	epoch     map[stores.JobID]uint64
	elections *elections
	next      []call
}

func newWorkload(client int, seed uint64, inventory bool, el *elections) *workload {
	return &workload{
		client: client, rng: rand.New(rand.NewPCG(seed, uint64(client))), inventory: inventory,
		epoch: map[stores.JobID]uint64{}, elections: el,
	}
}

func (w *workload) owner() string { return fmt.Sprintf("client-%d", w.client) }

// pick returns the client's next call.
func (w *workload) pick() call {
	if len(w.next) > 0 {
		c := w.next[0]
		w.next = w.next[1:]
		return c
	}
	// Two calls in three on the first job: more collisions there, and
	// the second still checks that jobs stay apart.
	job := linearizabilityJobs[min(w.rng.IntN(3), 1)]
	c := call{Kind: w.kind(), Job: job, Key: 1 + w.rng.Uint64N(modelKeys), Epoch: w.epoch[job], Owner: w.owner(),
		Attempt: 1 + w.rng.Uint32N(3), Keep: w.rng.IntN(2) == 0, Aged: w.rng.IntN(5) > 0, Claimant: w.rng.IntN(3) == 0}
	// Two tokens per key: a second finalization of the same checkpoint
	// conflicts, the same one from another client is a retry.
	c.Token = fmt.Sprintf("k%d-%c", c.Key, 'a'+w.rng.IntN(2))
	if c.Kind == opSubsume {
		// Subsumption removes older checkpoints: the upper half of the
		// keys stays publishable until the job is retired, so that fresh
		// publishes race each retirement.
		c.Key = 1 + w.rng.Uint64N(modelKeys/2)
	}
	switch {
	case c.Kind == opClaim && (c.Epoch == 0 || w.rng.IntN(3) == 0):
		c.Epoch++
	case w.rng.IntN(12) == 0:
		// A deposed or premature caller.
		c.Epoch = max(1, c.Epoch+uint64(w.rng.IntN(3))-1)
	}
	if c.Kind != opClaim && w.rng.IntN(4) == 0 {
		// Told by an election, not by the store.
		c.Epoch = max(c.Epoch, w.elections.latest(job))
	}
	c.Epoch = max(1, c.Epoch)
	return c
}

func (w *workload) kind() opKind {
	return PickWeighted(w.rng, weights, func(k weight) int {
		if k.inventory && !w.inventory {
			return 0
		}
		return k.weight
	}).kind
}

// learn updates what the client knows from an answer and queues the calls
// a job manager would make next.
func (w *workload) learn(c call, a answer) {
	switch {
	case a.Unknown || a.Malformed != "":
	case c.Kind == opClaim && a.Rejection == "":
		w.epoch[c.Job] = c.Epoch
		w.elections.record(c.Job, c.Epoch)
	case c.Kind == opRetire && a.Rejection == "":
		// Read what the retirement left: the watermark (a publish that
		// raced it must be below it) and the keys fresh publishes go to
		// (none may still be published), then claim the ID again: each
		// retirement starts a fresh life, half the time at once (a
		// resubmission, the old tombstones still there), else once
		// collection has forgotten the job.
		w.next = append(w.next, call{Kind: opReadJob, Job: c.Job})
		for n := uint64(modelKeys/2 + 1); n <= modelKeys; n++ {
			w.next = append(w.next, call{Kind: opRead, Job: c.Job, Key: n})
		}
		if w.rng.IntN(2) == 0 {
			w.next = append(w.next, call{Kind: opClaim, Job: c.Job, Epoch: c.Epoch + 1, Owner: w.owner()})
		}
		w.next = append(w.next, call{Kind: opCollect, Job: c.Job, Aged: true}, call{Kind: opReadJob, Job: c.Job})
	case c.Kind == opSubsume && a.Rejection == "":
		// The remover collects a subsumed tombstone once the finalization
		// of its token has closed: the token is the call's, so half the
		// time another one than the key's.
		w.next = append(w.next, call{Kind: opCollectSubsumed, Job: c.Job, Key: c.Key, Token: c.Token})
	case c.Kind == opReadJob:
		w.epoch[c.Job] = a.State.Epoch
		if a.State.Retired {
			w.next = append(w.next, call{Kind: opCollect, Job: c.Job, Aged: true})
		} else if a.State.Owner == "" {
			w.next = append(w.next, call{Kind: opClaim, Job: c.Job, Epoch: a.State.Epoch + 1, Owner: w.owner()})
		}
	case a.Rejection == stores.ErrStaleEpoch.Error() || a.Rejection == stores.ErrRetired.Error():
		w.next = append(w.next, call{Kind: opReadJob, Job: c.Job})
	}
}
