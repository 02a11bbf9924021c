package faultharness

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/internal/pace"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/invariants"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/world"
)

// targetedTimeout bounds one targeted scenario.
const targetedTimeout = 3 * time.Minute

// targeted runs the targeted scenarios before anything else runs, so that
// each fault hits exactly the write it aims at: with no other job at
// work, the first ZooKeeper multi-op after arming is that publish.
func (r *run) targeted(ctx context.Context, seed uint64) error {
	ctx, cancel := context.WithTimeout(ctx, 2*targetedTimeout)
	defer cancel()
	for _, l := range r.w.Lanes() {
		scenarios := []func(context.Context, *job) (Scenario, error){r.droppedReply, r.fencedReplay}
		if r.cfg.CrashAfterPublish && !r.cfg.Naive {
			scenarios = append(scenarios, r.crashAfterPublish, r.crashBeforeRetention)
		}
		for _, sc := range scenarios {
			j := newJob(fmt.Sprintf("targeted-%d", len(r.all)+1), seed^0x7461726774, l)
			r.mu.Lock()
			r.all = append(r.all, j)
			r.mu.Unlock()
			if err := r.claim(ctx, j); err != nil {
				return err
			}
			s, err := sc(ctx, j)
			if len(r.w.Lanes()) > 1 {
				s.Name += " (" + l.Name + ")"
			}
			if err != nil {
				return fmt.Errorf("targeted scenario %s: %w", s.Name, err)
			}
			r.cfg.Logger.Info("targeted scenario", "name", s.Name, "hits", s.Hits, "outcome", s.Outcome, "detail", s.Detail)
			r.rep.Targeted = append(r.rep.Targeted, s)
		}
	}
	return nil
}

// droppedReply is FLINK-22494 on purpose: the publish lands and its reply
// is lost. The protocol retries, finds its own write and ends Published;
// the naive workflow takes the error at its word and discards the state of
// a reference that stands (I1, I2).
func (r *run) droppedReply(ctx context.Context, j *job) (Scenario, error) {
	s := Scenario{Name: "dropped-reply"}
	_, armed, f, err := r.armedFinalization(ctx, j, s.Name, 0, true)
	if err != nil {
		return s, err
	}
	armed.Wait(ctx, targetedTimeout)
	s.Hits = armed.Disarm()
	res, outcome := r.settled(ctx, f)
	s.Outcome = outcome
	s.Detail = fmt.Sprintf("publish applied, reply dropped; %d attempt(s) %s", res.Attempts, invariants.Clip(res.Reason))
	return s, nil
}

// fencedReplay drops every publish request of a finalization allowed one
// attempt, until it verifies (real) or ends (naive), then replays that
// attempt straight to the store. The protocol fences the key (Verify,
// Absent), discards, and the replay is Rejected with the key untouched
// (I6); the naive workflow discards with no fence and the replay lands on
// discarded state (I2, I6, I1).
func (r *run) fencedReplay(ctx context.Context, j *job) (Scenario, error) {
	s := Scenario{Name: "fenced-replay"}
	req, armed, f, err := r.armedFinalization(ctx, j, s.Name, 1, false)
	if err != nil {
		return s, err
	}
	// Re-arm at once after every hit, apart from the status queries: with
	// the first publish a local activity, its retries come within the
	// workflow task, when a query may wait for the task to end.
	stop, rearmed := make(chan struct{}), make(chan int)
	go func() {
		hits := 0
		for {
			select {
			case <-stop:
				rearmed <- hits + armed.Disarm()
				return
			default:
			}
			if armed.Wait(ctx, 20*time.Millisecond) {
				hits += armed.Disarm()
				armed = j.lane.ArmPublish(req.Token(), false)
			}
		}
	}()
	deadline := time.Now().Add(targetedTimeout)
	for time.Now().Before(deadline) && ctx.Err() == nil && !r.verifyingOrDone(ctx, f) {
		pace.Sleep(ctx, 100*time.Millisecond)
	}
	close(stop)
	s.Hits += <-rearmed
	res, outcome := r.settled(ctx, f)
	s.Outcome = outcome

	e, ok := r.replayable(ctx, f)
	if !ok {
		s.Detail = "nothing to replay: " + res.Reason
		return s, nil
	}
	_, detail := r.replay(ctx, f, e, rand.New(rand.NewPCG(1, 1)))
	s.Detail = fmt.Sprintf("publish requests dropped; %s; replay: %s", invariants.Clip(res.Reason), invariants.Clip(detail))
	return s, nil
}

// armedFinalization writes a checkpoint of j (allowed maxAttempts, 0 for
// the default), arms j's store against its publish (reply: whether a hit
// publish still applies and only its reply is lost) and starts its
// finalization under the scenario's name: the setup every targeted
// scenario shares. On error nothing stays armed.
func (r *run) armedFinalization(ctx context.Context, j *job, name string, maxAttempts uint32, reply bool) (contract.FinalizeRequest, world.ArmedWrite, *finalization, error) {
	req, err := r.checkpoint(ctx, j, false, maxAttempts)
	if err != nil {
		return req, nil, nil, err
	}
	armed := j.lane.ArmPublish(req.Token(), reply)
	f, err := r.trigger(ctx, req, name)
	if err != nil {
		armed.Disarm()
		return req, nil, nil, err
	}
	return req, armed, f, nil
}

// settled awaits f and names its outcome; the result says more.
func (r *run) settled(ctx context.Context, f *finalization) (contract.FinalizeResult, string) {
	r.await(ctx, f)
	res, _, failure := f.outcome()
	return res, invariants.OutcomeName(res, failure)
}

// verifyingOrDone reports whether f has gone to Verifying (the protocol
// gave up on the attempt's outcome) or ended.
func (r *run) verifyingOrDone(ctx context.Context, f *finalization) bool {
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if r.cfg.Naive {
		d, err := r.w.Temporal().DescribeWorkflow(qctx, naiveWorkflowID(f.req), "")
		return err == nil && d.RawResponse.GetWorkflowExecutionInfo().GetCloseTime() != nil
	}
	st, err := r.laneOf(f.req.CheckpointID().JobID).Client.Status(qctx, f.req.Cluster, f.req.Job, f.req.Epoch, f.req.Checkpoint)
	return err == nil && (st.Phase == contract.Verifying || st.Phase.Terminal())
}
