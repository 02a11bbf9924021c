package invariants

import (
	"context"
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/internal/pace"
)

// CheckAtRest is I3: no state at rest without a reference (byID: each
// checkpoint's finalizations). It returns what is kept by design, by why.
func (j *Judge) CheckAtRest(ctx context.Context, byID map[stores.CheckpointID][]Finalization) map[string]int {
	orphans, kept, err := j.orphans(ctx, byID)
	if err != nil {
		j.HarnessError(err)
	}
	for _, o := range orphans {
		j.Violation("I3", o.state.id.String(), "state left without a reference (%d handle blobs, %d files; key %s; %s)",
			len(o.state.handles), len(o.state.files), DescribeEntry(o.entry), o.reason)
	}
	return kept
}

// CheckReference is I1: a published reference resolves to a handle, and
// the handle to data, all present and intact. A miss is confirmed by
// reading the key again: by now the run has settled, so nothing should
// have moved.
func (j *Judge) CheckReference(ctx context.Context, e stores.Entry, job stores.JobID, shared string) {
	subject := fmt.Sprintf("%s checkpoint %d", job, e.Checkpoint)
	var problem string
	if err := pace.Retry(ctx, "look up "+subject, func(ctx context.Context) (err error) {
		problem, err = j.ReferenceProblem(ctx, e, shared)
		return err
	}, nil); err != nil {
		j.HarnessError(err)
		return
	}
	if problem == "" {
		return
	}
	if held, err := StillPublished(ctx, j.Store(job), e, job); err == nil && !held {
		return // removed meanwhile (the reconciler quarantined it)
	}
	j.Violation("I1", subject, "published reference to handle %s, %s", e.Reference.Handle, problem)
}

// CheckFinalization is I4 (every finalization ended Published, Discarded
// or Abandoned; none lost), I2 (nothing discarded while its reference is
// present or could still land) and I7 (Published exactly when its token
// was published). A finalization of a retired incarnation of its job ID
// may find its key collected, or the next incarnation's there.
func (j *Judge) CheckFinalization(ctx context.Context, f Finalization, js stores.JobState) {
	res, ended, failure := f.Result, f.Ended, f.Failure
	switch {
	case !ended:
		j.Violation("I4", f.Subject(), "did not end%s", j.Within)
		return
	case failure != "":
		j.Violation("I4", f.Subject(), "the workflow failed instead of ending: %s", failure)
		return
	}
	id := f.Request.CheckpointID()
	var e stores.Entry
	if err := pace.Retry(ctx, "read "+id.String(), func(ctx context.Context) (err error) {
		e, err = j.Store(id.JobID).Read(ctx, id)
		return err
	}, nil); err != nil {
		j.HarnessError(err)
		return
	}
	token := f.Request.Token()
	_, past := j.retired(id.JobID, f.Request.Epoch)
	switch res.Phase {
	case contract.Published:
		// Still referenced, or removed (subsumed, retired, quarantined: a
		// tombstone of its token), or subsumed and that tombstone collected
		// (no reference at or below the watermark: the key absent, or
		// fenced again by a late discard's guard), or a past incarnation's
		// key; anything else lost an acknowledged checkpoint, or it was
		// never published (I7).
		collected := past || (e.Reference == nil && f.Request.Checkpoint <= js.Watermark)
		if !e.HoldsToken(token) && !removed(e, token) && !collected {
			j.Violation("I4", f.Subject(), "ended Published, but its key holds %s", DescribeEntry(e))
		}
	case contract.Discarded:
		switch {
		case e.HoldsToken(token):
			j.Violation("I2", f.Subject(), "discarded while its reference is present (%s): %s", DescribeEntry(e), Clip(res.Reason))
		case removed(e, token):
			j.Violation("I7", f.Subject(), "ended Discarded, but its reference was published: the key holds %s: %s", DescribeEntry(e), Clip(res.Reason))
		case e.Absent() && !js.Retired && js.Epoch == f.Request.Epoch && js.Watermark < f.Request.Checkpoint:
			j.Violation("I2", f.Subject(), "discarded with no fence: the key is absent, epoch %d still current and above the watermark, so an attempt could still land: %s",
				f.Request.Epoch, Clip(res.Reason))
		}
	case contract.Abandoned:
		// The operator keeps the state; nothing to check but that it ended.
	default:
		j.Violation("I4", f.Subject(), "ended %s: %s", res.Phase, Clip(res.Reason))
	}
}

// removed reports whether the key holds a tombstone that removed token's
// published reference (any reason but a fence): the token was published.
func removed(e stores.Entry, token string) bool {
	return e.Tombstone != nil && e.Tombstone.Token == token && e.Tombstone.Reason != stores.ReasonFenced
}
