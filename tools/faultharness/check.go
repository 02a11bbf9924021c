package faultharness

import (
	"context"
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/internal/pace"
)

// check reads the store and the bucket as they are and reports every
// broken invariant, I1-I5 and I7 (I6 is the replays').
func (r *run) check(ctx context.Context) {
	jg := r.checks()
	jobs := map[stores.JobID]stores.JobState{}
	for _, j := range r.all {
		if js, ok := jg.checkJob(ctx, j.id, jobmanager.SharedKey(j.id)); ok {
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
			jg.checkReference(ctx, e, in.id, "")
		}
	}
	for _, f := range r.finalizations() {
		res, ended, failure := f.outcome()
		name := outcomeName(res, failure)
		if !ended {
			name = "NotEnded"
		}
		r.mu.Lock()
		r.rep.Outcomes[name]++
		if f.req.Savepoint {
			r.rep.SavepointsKept++
		}
		r.mu.Unlock()
		jg.checkFinalization(ctx, f, jobs[f.req.CheckpointID().JobID])
	}
	kept := jg.checkAtRest(ctx, r.byCheckpoint())
	r.mu.Lock()
	r.rep.Lifecycle.RetainedAtRest, r.rep.Lifecycle.ReportedAtRest = kept[keptRetained], kept[keptReported]
	r.mu.Unlock()
}

// checkAtRest is I3: no state at rest without a reference (byID: each
// checkpoint's finalizations). It returns what is kept by design, by why.
func (j *judge) checkAtRest(ctx context.Context, byID map[stores.CheckpointID][]*finalization) map[string]int {
	orphans, kept, err := j.orphans(ctx, byID)
	if err != nil {
		j.harnessError(err)
	}
	for _, o := range orphans {
		j.violation("I3", o.state.id.String(), "state left without a reference (%d handle blobs, %d files; key %s; %s)",
			len(o.state.handles), len(o.state.files), describeEntry(o.entry), o.reason)
	}
	return kept
}

// checkReference is I1: a published reference resolves to a handle, and
// the handle to data, all present and intact. A miss is confirmed by
// reading the key again: by now the run has settled, so nothing should
// have moved.
func (j *judge) checkReference(ctx context.Context, e stores.Entry, job stores.JobID, shared string) {
	subject := fmt.Sprintf("%s checkpoint %d", job, e.Checkpoint)
	var problem string
	if err := pace.Retry(ctx, "look up "+subject, func(ctx context.Context) (err error) {
		problem, err = j.referenceProblem(ctx, e, shared)
		return err
	}, nil); err != nil {
		j.harnessError(err)
		return
	}
	if problem == "" {
		return
	}
	if held, err := stillPublished(ctx, j.store(job), e, job); err == nil && !held {
		return // removed meanwhile (the reconciler quarantined it)
	}
	j.violation("I1", subject, "published reference to handle %s, %s", e.Reference.Handle, problem)
}

// checkFinalization is I4 (every finalization ended Published, Discarded
// or Abandoned; none lost), I2 (nothing discarded while its reference is
// present or could still land) and I7 (Published exactly when its token
// was published). A finalization of a retired incarnation of its job ID
// may find its key collected, or the next incarnation's there.
func (j *judge) checkFinalization(ctx context.Context, f *finalization, js stores.JobState) {
	res, ended, failure := f.outcome()
	switch {
	case !ended:
		j.violation("I4", f.subject(), "did not end%s", j.within)
		return
	case failure != "":
		j.violation("I4", f.subject(), "the workflow failed instead of ending: %s", failure)
		return
	}
	id := f.req.CheckpointID()
	var e stores.Entry
	if err := pace.Retry(ctx, "read "+id.String(), func(ctx context.Context) (err error) {
		e, err = j.store(id.JobID).Read(ctx, id)
		return err
	}, nil); err != nil {
		j.harnessError(err)
		return
	}
	token := f.req.Token()
	_, past := j.retired(id.JobID, f.req.Epoch)
	switch res.Phase {
	case contract.Published:
		// Still referenced, or removed (subsumed, retired, quarantined: a
		// tombstone of its token), or subsumed and that tombstone collected
		// (no reference at or below the watermark: the key absent, or
		// fenced again by a late discard's guard), or a past incarnation's
		// key; anything else lost an acknowledged checkpoint, or it was
		// never published (I7).
		collected := past || (e.Reference == nil && f.req.Checkpoint <= js.Watermark)
		if !e.HoldsToken(token) && !removed(e, token) && !collected {
			j.violation("I4", f.subject(), "ended Published, but its key holds %s", describeEntry(e))
		}
	case contract.Discarded:
		switch {
		case e.HoldsToken(token):
			j.violation("I2", f.subject(), "discarded while its reference is present (%s): %s", describeEntry(e), clip(res.Reason))
		case removed(e, token):
			j.violation("I7", f.subject(), "ended Discarded, but its reference was published: the key holds %s: %s", describeEntry(e), clip(res.Reason))
		case e.Absent() && !js.Retired && js.Epoch == f.req.Epoch && js.Watermark < f.req.Checkpoint:
			j.violation("I2", f.subject(), "discarded with no fence: the key is absent, epoch %d still current and above the watermark, so an attempt could still land: %s",
				f.req.Epoch, clip(res.Reason))
		}
	case contract.Abandoned:
		// The operator keeps the state; nothing to check but that it ended.
	default:
		j.violation("I4", f.subject(), "ended %s: %s", res.Phase, clip(res.Reason))
	}
}

// removed reports whether the key holds a tombstone that removed token's
// published reference (any reason but a fence): the token was published.
func removed(e stores.Entry, token string) bool {
	return e.Tombstone != nil && e.Tombstone.Token == token && e.Tombstone.Reason != stores.ReasonFenced
}

func describeEntry(e stores.Entry) string {
	switch {
	case e.Reference != nil:
		return fmt.Sprintf("a reference of token %s attempt %d", short(e.Reference.Token), e.Reference.Attempt)
	case e.Tombstone != nil:
		return fmt.Sprintf("a %s tombstone of token %s up to attempt %d", e.Tombstone.Reason, short(e.Tombstone.Token), e.Tombstone.FencedUpTo)
	}
	return "nothing"
}

func short(token string) string {
	if len(token) > 8 {
		return token[:8]
	}
	return token
}

// clip shortens the SDK's nested error texts for the report.
func clip(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
