package faultharness

import (
	"context"
	"fmt"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/internal/pace"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/invariants"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/world"
)

// sampleTimeout bounds one lookup of the continuous check; a store or
// bucket slow under a fault is sampled again next round.
const sampleTimeout = 10 * time.Second

// sampled is one job whose live references the continuous check follows.
type sampled struct {
	job  stores.JobID
	lane *world.Lane
	// shared is the job's shared file, "" for an intruder (it has none).
	shared string
}

// sampleLoop is the continuous I2 check: round after round, while the
// run goes on, it lists every live reference of every job in the stores,
// reads its handle and checks its metadata and data in the bucket. A miss
// is confirmed by reading the key again: a reference subsumed, retired or
// quarantined meanwhile has legitimately lost its state; one that still
// stands has not, and that is a violation (state discarded while its
// reference is present).
func (r *run) sampleLoop(ctx context.Context) {
	reported := map[string]bool{}
	for ctx.Err() == nil {
		for _, s := range r.sampledJobs() {
			r.sampleJob(ctx, s, reported)
		}
		r.mu.Lock()
		r.rep.Lifecycle.Continuous.Rounds++
		r.mu.Unlock()
		pace.Sleep(ctx, r.cfg.SampleEvery)
	}
}

// sampledJobs are the run's jobs and its intruders at this moment.
func (r *run) sampledJobs() []sampled {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]sampled, 0, len(r.all)+len(r.intruders))
	for _, j := range r.all {
		out = append(out, sampled{job: j.id, lane: j.lane, shared: jobmanager.SharedKey(j.id)})
	}
	for _, in := range r.intruders {
		out = append(out, sampled{job: in.id, lane: in.lane})
	}
	return out
}

// sampleJob checks every live reference of one job once.
func (r *run) sampleJob(ctx context.Context, s sampled, reported map[string]bool) {
	c := &r.rep.Lifecycle.Continuous
	count := func(n *int) {
		r.mu.Lock()
		*n++
		r.mu.Unlock()
	}
	lctx, cancel := context.WithTimeout(ctx, sampleTimeout)
	refs, err := s.lane.Checker().List(lctx, s.job)
	cancel()
	if err != nil {
		count(&c.ReadErrors)
		return
	}
	for _, e := range refs {
		key := fmt.Sprintf("%s/%d/%s", s.job, e.Checkpoint, e.Reference.Token)
		if ctx.Err() != nil {
			return
		}
		if reported[key] {
			continue // a violation already: once is enough
		}
		count(&c.References)
		problem, held, err := r.sampleReference(ctx, s, e)
		switch {
		case err != nil:
			count(&c.ReadErrors)
		case problem == "":
		case !held:
			count(&c.Misses)
			count(&c.Cleared)
		default:
			count(&c.Misses)
			reported[key] = true
			count(&c.Violations)
			r.violation("I2", fmt.Sprintf("%s checkpoint %d", s.job, e.Checkpoint),
				"continuous check: published reference of token %s to handle %s, %s; the key held it before and after that lookup",
				invariants.Short(e.Reference.Token), e.Reference.Handle, problem)
		}
	}
}

// sampleReference looks one reference up and, on a miss, reads its key
// again: held says the reference still stands.
func (r *run) sampleReference(ctx context.Context, s sampled, e stores.Entry) (problem string, held bool, err error) {
	lctx, cancel := context.WithTimeout(ctx, sampleTimeout)
	defer cancel()
	if problem, err = r.checks().ReferenceProblem(lctx, e, s.shared); err != nil || problem == "" {
		return problem, false, err
	}
	held, err = invariants.StillPublished(lctx, s.lane.Checker(), e, s.job)
	return problem, held, err
}
