package faultharness

import (
	"context"
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/internal/pace"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/invariants"
)

// check reads the store and the bucket as they are and reports every
// broken invariant, I1-I5 and I7 (I6 is the replays').
func (r *run) check(ctx context.Context) {
	jg := r.checks()
	jobs := map[stores.JobID]stores.JobState{}
	for _, j := range r.all {
		if js, ok := jg.CheckJob(ctx, j.id, jobmanager.SharedKey(j.id)); ok {
			jobs[j.id] = js
		}
	}
	// An intruder's requests were all refused: it should hold nothing;
	// anything it holds must at least resolve.
	for _, in := range r.intruders {
		var refs []stores.Entry
		if err := pace.Retry(ctx, "list "+in.id.String(), func(ctx context.Context) (err error) {
			refs, err = in.lane.Checker().List(ctx, in.id)
			return err
		}, nil); err != nil {
			r.harnessError(err)
		}
		for _, e := range refs {
			jg.CheckReference(ctx, e, in.id, "")
		}
	}
	for _, f := range r.finalizations() {
		res, ended, failure := f.outcome()
		name := invariants.OutcomeName(res, failure)
		if !ended {
			name = "NotEnded"
		}
		r.mu.Lock()
		r.rep.Outcomes[name]++
		if f.req.Savepoint {
			r.rep.SavepointsKept++
		}
		r.mu.Unlock()
		jg.CheckFinalization(ctx, f.seen(), jobs[f.req.CheckpointID().JobID])
	}
	kept := jg.CheckAtRest(ctx, r.byCheckpoint())
	r.mu.Lock()
	r.rep.Lifecycle.RetainedAtRest, r.rep.Lifecycle.ReportedAtRest = kept[invariants.KeptRetained], kept[invariants.KeptReported]
	r.mu.Unlock()
}

// checks is the run's judge: its stores per lane, its retirements and the
// reconciler's reports.
func (r *run) checks() *invariants.Judge {
	return &invariants.Judge{
		Store:  func(id stores.JobID) stores.ReferenceStore { return r.laneOf(id).Checker() },
		States: r.w.States(), Bucket: r.w.Bucket(), Retain: r.cfg.Retain,
		Incarnation: func(id stores.JobID, epoch uint64) (invariants.Retirement, bool) {
			return r.jobOf(id).retiredIncarnation(epoch)
		},
		Reported: func(key string) bool {
			r.mu.Lock()
			defer r.mu.Unlock()
			return r.kept[key] != ""
		},
		Within:       fmt.Sprintf(" within the settle timeout (%s)", r.cfg.SettleTimeout),
		Violation:    r.violation,
		HarnessError: r.harnessError,
	}
}
