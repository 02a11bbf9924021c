package faultharness

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/workflows"
)

// job is one simulated job manager: a job ID, its current epoch and its
// checkpoint counter.
type job struct {
	id   stores.JobID
	rng  *rand.Rand
	lane *lane // the HA store and workers of the job

	mu    sync.Mutex
	epoch uint64
	next  uint64
	// inFlight counts the job's finalizations triggered and not ended.
	inFlight int
}

func newJob(name string, seed uint64, l *lane) *job {
	return &job{
		id:   stores.JobID{Cluster: cluster, Job: name},
		rng:  rand.New(rand.NewPCG(seed, 0x6a6f62)),
		lane: l,
		next: 1,
	}
}

// laneOf is the lane of a job of the run.
func (r *run) laneOf(id stores.JobID) *lane {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, j := range r.all {
		if j.id == id {
			return j.lane
		}
	}
	return r.w.lanes[0]
}

// cluster is every job's cluster; a run has its stores to itself.
const cluster = "harness"

// finalization is the harness's record of one finalization.
type finalization struct {
	req   workflows.FinalizeRequest
	label string // "random", "closing" or a targeted scenario's name

	mu      sync.Mutex
	handle  *client.Finalization // real mode
	ended   bool
	result  workflows.FinalizeResult
	failure string // the workflow failed or timed out instead of returning
}

func (f *finalization) outcome() (workflows.FinalizeResult, bool, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.result, f.ended, f.failure
}

func (f *finalization) subject() string {
	return fmt.Sprintf("%s checkpoint %d (epoch %d, %s)", f.req.Job, f.req.Checkpoint, f.req.Epoch, f.label)
}

// claim claims the job's next epoch through the client, riding out faults.
func (r *run) claim(ctx context.Context, j *job) error {
	j.mu.Lock()
	epoch := j.epoch + 1
	j.mu.Unlock()
	req := workflows.ClaimRequest{Cluster: j.id.Cluster, Job: j.id.Job, Epoch: epoch, Owner: fmt.Sprintf("jm-%s-%d", j.id.Job, epoch)}
	err := retry(ctx, "claim epoch", func(ctx context.Context) error { return j.lane.fc.ClaimEpoch(ctx, req) },
		func(err error) bool {
			return errors.Is(err, client.ErrInvalidRequest) || errors.Is(err, client.ErrRejected)
		})
	if err != nil {
		return fmt.Errorf("claim epoch %d of %s: %w", epoch, j.id, err)
	}
	j.mu.Lock()
	j.epoch = epoch
	j.mu.Unlock()
	return nil
}

// checkpoint writes the job's next checkpoint into the bucket, as a job
// manager does before it triggers, and returns its request.
func (r *run) checkpoint(ctx context.Context, j *job, savepoint bool, maxAttempts uint32) (workflows.FinalizeRequest, error) {
	j.mu.Lock()
	n, epoch := j.next, j.epoch
	j.next++
	j.mu.Unlock()
	req, err := r.w.blob.writeCheckpoint(ctx, j.id, epoch, n, savepoint)
	if err != nil {
		return req, fmt.Errorf("write checkpoint %d of %s: %w", n, j.id, err)
	}
	req.MaxPublishAttempts = maxAttempts
	return req, nil
}

// trigger starts a finalization, real or naive, riding out faults.
func (r *run) trigger(ctx context.Context, req workflows.FinalizeRequest, label string) (*finalization, error) {
	f := &finalization{req: req, label: label}
	r.record(f)
	l := r.laneOf(req.CheckpointID().JobID)
	err := retry(ctx, "trigger "+req.WorkflowID(), func(ctx context.Context) error {
		if r.cfg.Naive {
			_, err := r.w.tc.ExecuteWorkflow(ctx, naiveStart(req), NaiveWorkflow,
				NaiveInput{Request: req, ActivityTaskQueue: l.taskQueue})
			var started *serviceerror.WorkflowExecutionAlreadyStarted
			if errors.As(err, &started) {
				return nil // a retry after a lost answer: the first start stands
			}
			return err
		}
		h, err := l.fc.Finalize(ctx, req)
		if err == nil {
			f.mu.Lock()
			f.handle = h
			f.mu.Unlock()
		}
		return err
	}, func(err error) bool {
		var mismatch *client.ContentMismatchError
		return errors.Is(err, client.ErrInvalidRequest) || errors.As(err, &mismatch)
	})
	if err != nil {
		return f, fmt.Errorf("trigger %s: %w", req.WorkflowID(), err)
	}
	return f, nil
}

func naiveStart(req workflows.FinalizeRequest) sdkclient.StartWorkflowOptions {
	return sdkclient.StartWorkflowOptions{
		ID:                                       naiveWorkflowID(req),
		TaskQueue:                                naiveTaskQueue,
		WorkflowIDConflictPolicy:                 enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:                    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowExecutionErrorWhenAlreadyStarted: true,
	}
}

// await waits for the finalization's end, riding out faults, until ctx
// ends; a finalization still running then is recorded as not ended.
func (r *run) await(ctx context.Context, f *finalization) {
	var res workflows.FinalizeResult
	err := retry(ctx, "wait for "+f.req.WorkflowID(), func(context.Context) error {
		// A long poll: no per-call deadline but the run's.
		if r.cfg.Naive {
			return r.w.tc.GetWorkflow(ctx, naiveWorkflowID(f.req), "").Get(ctx, &res)
		}
		f.mu.Lock()
		h := f.handle
		f.mu.Unlock()
		var err error
		res, err = h.Wait(ctx)
		return err
	}, isWorkflowFailure)
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case err == nil:
		f.ended, f.result = true, res
	case isWorkflowFailure(err):
		f.ended, f.failure = true, err.Error()
	}
}

// isWorkflowFailure tells a finalization that failed (an execution error:
// failed, timed out, terminated) from a call that did not get an answer.
func isWorkflowFailure(err error) bool {
	var exec *temporal.WorkflowExecutionError
	return errors.As(err, &exec)
}

// jobLoop is one job manager's stream: take a ticket, write a checkpoint,
// trigger it, and keep up to InFlight finalizations running.
func (r *run) jobLoop(ctx context.Context, j *job, g *gate, waits *sync.WaitGroup) error {
	slots := make(chan struct{}, r.cfg.InFlight)
	for {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		if _, ok := g.ticket(ctx); !ok {
			<-slots
			return ctx.Err()
		}
		savepoint := r.cfg.SavepointEvery > 0 && j.rng.IntN(r.cfg.SavepointEvery) == 0
		req, err := r.checkpoint(ctx, j, savepoint, 0)
		if err != nil {
			return err
		}
		f, err := r.trigger(ctx, req, "random")
		if err != nil {
			return err
		}
		j.mu.Lock()
		j.inFlight++
		j.mu.Unlock()
		waits.Add(1)
		go func() {
			defer waits.Done()
			defer func() { <-slots }()
			r.await(r.settleCtx, f)
			j.mu.Lock()
			j.inFlight--
			j.mu.Unlock()
		}()
	}
}

// leadershipChange has a new job manager claim a new epoch for a job while
// its finalizations of the old epoch run: they end Published (landed before
// the claim) or Discarded (Rejected: stale epoch), and the job's next
// checkpoints carry the new epoch. It never waits for the job's triggers:
// they wait for the faults (see gate).
func (r *run) leadershipChange(ctx context.Context, rng *rand.Rand) (int, string, error) {
	// Prefer a job with finalizations in flight: that is the change's point.
	var busy []*job
	for _, j := range r.jobs {
		j.mu.Lock()
		if j.inFlight > 0 {
			busy = append(busy, j)
		}
		j.mu.Unlock()
	}
	if len(busy) == 0 {
		busy = r.jobs
	}
	j := busy[rng.IntN(len(busy))]
	j.mu.Lock()
	inFlight, old := j.inFlight, j.epoch
	j.mu.Unlock()
	if err := r.claim(ctx, j); err != nil {
		return 0, "", err
	}
	return 1, fmt.Sprintf("%s epoch %d -> %d with %d finalization(s) in flight", j.id.Job, old, old+1, inFlight), nil
}
