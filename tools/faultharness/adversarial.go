package faultharness

import (
	"context"
	"fmt"
	"strings"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/internal/pace"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/invariants"
)

// unclaimedEpochs is how far above the current claim an unclaimed-epoch
// request goes: no claim of the run ever reaches it.
const unclaimedEpochs = 1000

// attack is one adversarial request under way.
type attack struct {
	kind AdversarialKind
	f    *finalization
	// want is the directory the workers derive for a directory attack.
	want string
	// target is the live reference the request aims at, nil for none.
	target *stores.Entry
}

// adversarial sends one adversarial request of kind at job j beside the
// job's stream, judges how it ended and, for a trigger before its claim,
// makes the claim. It ends before the checks (ctx is the settle context).
func (r *run) adversarial(ctx context.Context, j *job, kind AdversarialKind) {
	if kind == TriggerBeforeClaim {
		// Nothing else may claim the epoch while the request runs.
		j.life.Lock()
		defer j.life.Unlock()
	}
	a, err := r.prepare(ctx, j, kind)
	if err != nil || a == nil {
		if err != nil {
			r.harnessError(fmt.Errorf("%s request at %s: %w", kind, j.id, err))
		}
		return
	}
	r.mu.Lock()
	r.advs = append(r.advs, a.f)
	r.mu.Unlock()
	if err := r.start(ctx, a.f); err != nil {
		r.harnessError(err)
		return
	}
	r.await(ctx, a.f)
	r.judge(ctx, a)
	if kind == TriggerBeforeClaim {
		if err := r.claim(ctx, j); err != nil {
			r.harnessError(fmt.Errorf("claim after a trigger before the claim: %w", err))
		}
	}
}

// prepare builds the request of kind (writing its files where it names
// new ones); nil when the job can no longer be attacked.
func (r *run) prepare(ctx context.Context, j *job, kind AdversarialKind) (*attack, error) {
	j.mu.Lock()
	stuck, epoch := j.stuck, j.epoch
	j.mu.Unlock()
	if stuck {
		return nil, nil
	}
	live, err := r.newestLive(ctx, j)
	if err != nil {
		return nil, err
	}
	a := &attack{kind: kind, target: live, f: &finalization{label: string(kind), lane: j.lane}}
	switch kind {
	case ForeignDirectory:
		in := r.intruderOn(j.lane)
		m := r.aim(in, checkpointOf(live))
		in.mu.Lock()
		a.f.req = checkpointRequest(j.id, in.epoch, m, jobmanager.CheckpointDir(j.id, m), false)
		in.mu.Unlock()
		a.f.req.Cluster, a.f.req.Job = in.id.Cluster, in.id.Job
		a.want = jobmanager.CheckpointDir(in.id, m)
	case NestedDirectory:
		n, epoch := j.take()
		outer := checkpointOf(live)
		if outer == 0 {
			outer = n
		}
		dir := fmt.Sprintf("%sx/chk-%d/", jobmanager.CheckpointDir(j.id, outer), n)
		if a.f.req, err = r.writeCheckpointAt(ctx, j.id, epoch, n, dir, false); err != nil {
			return nil, err
		}
		a.want = jobmanager.CheckpointDir(j.id, n)
	case UnclaimedEpoch:
		epoch += unclaimedEpochs + uint64(j.rng.IntN(unclaimedEpochs))
		if live != nil {
			// The live checkpoint's own directory, its files in place.
			a.f.req = checkpointRequest(j.id, epoch, live.Checkpoint, jobmanager.CheckpointDir(j.id, live.Checkpoint), false)
			break
		}
		n, _ := j.take()
		if a.f.req, err = r.writeCheckpoint(ctx, j.id, epoch, n, false); err != nil {
			return nil, err
		}
	case TriggerBeforeClaim:
		n, _ := j.take()
		a.target = nil
		if a.f.req, err = r.writeCheckpoint(ctx, j.id, epoch+1, n, false); err != nil {
			return nil, err
		}
	}
	a.f.rawID = a.f.req.WorkflowID()
	return a, nil
}

// newestLive is the job's newest published reference, nil for none.
func (r *run) newestLive(ctx context.Context, j *job) (*stores.Entry, error) {
	var refs []stores.Entry
	if err := pace.Retry(ctx, "list "+j.id.String(), func(ctx context.Context) (err error) {
		refs, err = j.lane.Checker().List(ctx, j.id)
		return err
	}, nil); err != nil {
		return nil, err
	}
	if len(refs) == 0 {
		return nil, nil
	}
	return &refs[len(refs)-1], nil
}

func checkpointOf(e *stores.Entry) uint64 {
	if e == nil {
		return 0
	}
	return e.Checkpoint
}

// judge counts how the request ended and reports a violation when the
// contract says otherwise: a request naming another directory, or a
// nested one, ends Failed, its reason naming the field and the expected
// directory, with nothing written; one at an epoch nobody claimed ends
// Discarded (stale epoch). Its effect on live data is the continuous
// check's, on retention the final I5's.
func (r *run) judge(ctx context.Context, a *attack) {
	res, ended, failure := a.f.outcome()
	outcome := invariants.OutcomeName(res, failure)
	if !ended {
		outcome = "NotEnded"
	}
	r.mu.Lock()
	r.rep.Lifecycle.countAdversarial(a.kind, outcome)
	r.mu.Unlock()
	subject := a.f.subject()
	switch {
	case !ended || failure != "":
		r.violation("requests", subject, "did not end Failed or Discarded: %s %s", outcome, invariants.Clip(failure))
	case a.want != "":
		if res.Phase != contract.Failed {
			r.violation("requests", subject, "named %s (not its directory %s) and ended %s, not Failed: %s",
				a.f.req.ExclusivePrefix, a.want, res.Phase, invariants.Clip(res.Reason))
		} else if !namesField(res.Reason) || !strings.Contains(res.Reason, a.want) {
			r.violation("requests", subject, "ended Failed, but its reason names neither the field nor the expected directory %s: %s",
				a.want, invariants.Clip(res.Reason))
		}
		if w := r.written(ctx, a.f); w != "" {
			r.violation("requests", subject, "named %s and ended %s, yet %s", a.f.req.ExclusivePrefix, res.Phase, w)
		}
	case res.Phase == contract.Discarded:
	case res.Phase == contract.Failed && r.gone(ctx, a):
		// Its checkpoint's data went with a legitimate removal before it
		// was persisted: Failed (data missing) is right.
	default:
		r.violation("requests", subject, "at epoch %d, which nobody had claimed, ended %s, not Discarded: %s",
			a.f.req.Epoch, res.Phase, invariants.Clip(res.Reason))
	}
}

func namesField(reason string) bool {
	return strings.Contains(reason, "exclusivePrefix") || strings.Contains(reason, "metadataKey")
}

// written says what a refused request left in the store or the bucket
// under its own identity: a key holding its token, or its handle blob.
func (r *run) written(ctx context.Context, f *finalization) string {
	id, token := f.req.CheckpointID(), f.req.Token()
	var (
		e      stores.Entry
		handle bool
	)
	key := blobstate.Key(id, f.req.Epoch)
	err := pace.Retry(ctx, "read "+id.String(), func(ctx context.Context) (err error) {
		if e, err = f.lane.Checker().Read(ctx, id); err != nil {
			return err
		}
		handle, err = invariants.BucketHas(ctx, r.w.Bucket(), key)
		return err
	}, nil)
	switch {
	case err != nil:
		r.harnessError(err)
	case e.HoldsToken(token) || (e.Tombstone != nil && e.Tombstone.Token == token):
		return "its key holds " + invariants.DescribeEntry(e)
	case handle:
		return "its handle blob " + key + " was written"
	}
	return ""
}

// gone reports whether the live reference the request aimed at was
// removed since (its data then legitimately discarded).
func (r *run) gone(ctx context.Context, a *attack) bool {
	if a.target == nil {
		return false
	}
	var held bool
	err := pace.Retry(ctx, "read "+a.f.req.CheckpointID().String(), func(ctx context.Context) (err error) {
		held, err = invariants.StillPublished(ctx, a.f.lane.Checker(), *a.target, a.f.req.CheckpointID().JobID)
		return err
	}, nil)
	return err == nil && !held
}
