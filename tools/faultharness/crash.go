package faultharness

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/internal/pace"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/invariants"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/world"
)

// crashAfterPublish aims at the fast path (the first publish a local
// activity, recorded only when its workflow task completes): the publish
// lands, its reply is dropped, and the lane's workers are killed with
// SIGKILL at that moment, before the local retry and before the task
// completes. While the task waits for its timeout on a fresh worker, newer
// checkpoints of the job are published and subsumption removes the one
// that landed: its reference is tombstoned and its state discarded, as it
// should be. The retried task must still end the finalization Published
// (its reference landed); it must not take the missing state for a
// definite failure (I4).
func (r *run) crashAfterPublish(ctx context.Context, j *job) (Scenario, error) {
	s := Scenario{Name: "crash-after-publish"}
	req, f, hit, err := r.crashOnPublish(ctx, j, &s)
	if err != nil {
		return s, err
	}
	// Retain+1 newer checkpoints, so that retention subsumes this one.
	var newer []*finalization
	for range r.cfg.Retain + 1 {
		req, err := r.checkpoint(ctx, j, false, 0)
		if err != nil {
			return s, err
		}
		nf, err := r.trigger(ctx, req, s.Name+"/newer")
		if err != nil {
			return s, err
		}
		newer = append(newer, nf)
	}
	for _, nf := range newer {
		r.await(ctx, nf)
	}
	res, outcome := r.settled(ctx, f)
	s.Outcome = outcome
	var e string
	if err := pace.Retry(ctx, "read "+req.CheckpointID().String(), func(ctx context.Context) error {
		en, err := j.lane.Checker().Read(ctx, req.CheckpointID())
		e = invariants.DescribeEntry(en)
		return err
	}, nil); err != nil {
		e = err.Error()
	}
	s.Detail = fmt.Sprintf("workers killed on the dropped reply: %t; key now holds %s; %d attempt(s) %s",
		hit, e, res.Attempts, invariants.Clip(res.Reason))
	return s, nil
}

// crashBeforeRetention aims at retention off the finalization's path: the
// job holds the references retention keeps, then one more publish lands
// and the workers running it are killed at that moment, before the
// publish could hand the job to their background retention. No newer
// checkpoint follows. The job's retention must settle all the same (the
// retried finalization's verify finds its token and hands the job over
// again; a restarted worker's sweep passes every job): the references
// retention keeps and no more (I5), the removed one's state discarded
// (I3, judged with every other job's at the end).
func (r *run) crashBeforeRetention(ctx context.Context, j *job) (Scenario, error) {
	s := Scenario{Name: "crash-before-retention"}
	for range r.cfg.Retain {
		req, err := r.checkpoint(ctx, j, false, 0)
		if err != nil {
			return s, err
		}
		f, err := r.trigger(ctx, req, s.Name+"/retained")
		if err != nil {
			return s, err
		}
		r.await(ctx, f)
	}
	_, f, hit, err := r.crashOnPublish(ctx, j, &s)
	if err != nil {
		return s, err
	}
	res, outcome := r.settled(ctx, f)
	s.Outcome = outcome
	began, over := time.Now(), -1
	for time.Since(began) < targetedTimeout && over != 0 {
		refs, err := j.lane.Checker().List(ctx, j.id)
		if err == nil {
			_, remove := activities.RetentionPlan(refs, r.cfg.Retain)
			over = len(remove)
		}
		if over != 0 {
			pace.Sleep(ctx, 200*time.Millisecond)
		}
	}
	retention := "within retention"
	if over != 0 {
		retention = fmt.Sprintf("%d reference(s) over retention", over)
	}
	s.Detail = fmt.Sprintf("workers killed on the landed publish: %t; %s %s after it ended, no newer checkpoint; %d attempt(s) %s",
		hit, retention, time.Since(began).Round(100*time.Millisecond), res.Attempts, invariants.Clip(res.Reason))
	return s, nil
}

// crashOnPublish triggers a checkpoint of j whose publish lands with its
// reply dropped, and at that moment kills the worker that runs its task
// (its log names the workflow), so that the others go on; only the killed
// slots start again (a start in a slot whose process runs would leave that
// one behind, untracked). hit: the publish landed and its worker died.
func (r *run) crashOnPublish(ctx context.Context, j *job, s *Scenario) (req contract.FinalizeRequest, f *finalization, hit bool, err error) {
	req, armed, f, err := r.armedFinalization(ctx, j, s.Name, 0, true)
	if err != nil {
		return req, nil, false, err
	}
	hit = armed.Wait(ctx, targetedTimeout)
	var victims world.Workers
	var killed error
	if hit {
		victims = j.lane.RunningWorkflow("WorkflowID=" + req.WorkflowID() + " ")
		killed = victims.Kill()
	}
	s.Hits = armed.Disarm()
	return req, f, hit, errors.Join(killed, victims.Start(ctx))
}
