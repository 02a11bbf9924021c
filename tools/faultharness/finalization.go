package faultharness

import (
	"context"
	"errors"
	"fmt"
	"sync"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/naive"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/internal/pace"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/invariants"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/world"
)

// finalization is the harness's record of one finalization.
type finalization struct {
	req   contract.FinalizeRequest
	label string // "random", "closing", a targeted scenario's or an adversarial kind's name
	lane  *world.Lane
	// rawID is the workflow ID of a finalization started straight through
	// the SDK (naive, adversarial), empty for one started by the client.
	rawID string

	mu      sync.Mutex
	handle  *client.Finalization // real mode
	ended   bool
	result  contract.FinalizeResult
	failure string // the workflow failed or timed out instead of returning
}

func (f *finalization) outcome() (contract.FinalizeResult, bool, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.result, f.ended, f.failure
}

func (f *finalization) subject() string {
	return invariants.Finalization{Request: f.req, Label: f.label}.Subject()
}

// seen is the finalization as the checks see it at this moment.
func (f *finalization) seen() invariants.Finalization {
	res, ended, failure := f.outcome()
	return invariants.Finalization{Request: f.req, Label: f.label, Ended: ended, Result: res, Failure: failure}
}

// seenAll is every finalization of fins as the checks see it now.
func seenAll(fins []*finalization) []invariants.Finalization {
	out := make([]invariants.Finalization, 0, len(fins))
	for _, f := range fins {
		out = append(out, f.seen())
	}
	return out
}

// trigger starts a finalization, real or naive, riding out faults.
func (r *run) trigger(ctx context.Context, req contract.FinalizeRequest, label string) (*finalization, error) {
	f := &finalization{req: req, label: label, lane: r.laneOf(req.CheckpointID().JobID)}
	if r.cfg.Naive {
		f.rawID = naiveWorkflowID(req)
	}
	r.record(f)
	return f, r.start(ctx, f)
}

// start starts f's workflow, riding out faults: through the client, or,
// for a raw finalization, straight through the SDK with no check on the
// caller's side, as a caller in another language may.
func (r *run) start(ctx context.Context, f *finalization) error {
	req, l := f.req, f.lane
	err := pace.Retry(ctx, "trigger "+req.WorkflowID(), func(ctx context.Context) error {
		switch {
		case r.cfg.Naive:
			return r.startOnce(ctx, f.rawID, world.NaiveTaskQueue, NaiveWorkflow, naive.Input{Request: req, ActivityTaskQueue: l.TaskQueue})
		case f.rawID != "":
			return r.startOnce(ctx, f.rawID, l.TaskQueue, contract.FinalizeWorkflow, req)
		}
		h, err := l.Client.Finalize(ctx, req)
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
		return fmt.Errorf("trigger %s: %w", req.WorkflowID(), err)
	}
	return nil
}

// startOnce starts a workflow unless it was started already: a retry
// after a lost answer finds the first start standing.
func (r *run) startOnce(ctx context.Context, id, queue, workflow string, arg any) error {
	_, err := r.w.Temporal().ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{
		ID:                                       id,
		TaskQueue:                                queue,
		WorkflowIDConflictPolicy:                 enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:                    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowExecutionErrorWhenAlreadyStarted: true,
	}, workflow, arg)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return nil
	}
	return err
}

// await waits for the finalization's end, riding out faults, until ctx
// ends; a finalization still running then is recorded as not ended.
func (r *run) await(ctx context.Context, f *finalization) {
	var res contract.FinalizeResult
	err := pace.Retry(ctx, "wait for "+f.req.WorkflowID(), func(context.Context) error {
		// A long poll: no per-call deadline but the run's.
		if f.rawID != "" {
			return r.w.Temporal().GetWorkflow(ctx, f.rawID, "").Get(ctx, &res)
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
