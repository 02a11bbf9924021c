package faultharness

import (
	"context"
	"math/rand/v2"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/world"
)

// intruderCluster is the cluster of the intruders: another tenant of the
// same Temporal namespace and bucket.
const intruderCluster = "intruder"

// spareCheckpoints is where an intruder's checkpoint IDs go when the
// checkpoint it aims at was aimed at before: a directory nobody uses.
const spareCheckpoints = 1_000_000

// intruder is a job of another cluster, one per lane, that names harness
// jobs' checkpoint directories in its requests. It holds a claim, so that
// only the workers' directory check stands between its requests and
// another job's data.
type intruder struct {
	*job
	used map[uint64]bool // checkpoint IDs it requested; under run.mu
}

// startIntruders claims an intruder's epoch on every lane.
func (r *run) startIntruders(ctx context.Context, seed uint64) error {
	for _, l := range r.w.Lanes() {
		in := &intruder{used: map[uint64]bool{}, job: &job{
			id:   stores.JobID{Cluster: intruderCluster, Job: "x-" + l.Name},
			rng:  rand.New(rand.NewPCG(seed, 0x696e74)),
			lane: l, next: 1,
		}}
		if err := r.claim(ctx, in.job); err != nil {
			return err
		}
		r.mu.Lock()
		r.intruders = append(r.intruders, in)
		r.mu.Unlock()
	}
	return nil
}

// intruderOn is the lane's intruder.
func (r *run) intruderOn(l *world.Lane) *intruder {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, in := range r.intruders {
		if in.lane == l {
			return in
		}
	}
	return nil
}

// aim picks the checkpoint ID of the intruder's next request: the
// target's, unless it was requested before (the identity would repeat),
// then a spare one.
func (r *run) aim(in *intruder, target uint64) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := target
	if n == 0 || in.used[n] {
		n = spareCheckpoints + uint64(len(in.used))
	}
	in.used[n] = true
	return n
}
