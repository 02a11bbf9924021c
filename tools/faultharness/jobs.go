package faultharness

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/internal/pace"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/invariants"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/world"
)

// job is one simulated job manager: a job ID, its current epoch and its
// checkpoint counter, and the incarnations of the ID it retired.
type job struct {
	id   stores.JobID
	rng  *rand.Rand
	lane *world.Lane // the HA store and workers of the job

	// life serializes what changes the job's epoch: claims by a leadership
	// change, a retirement and the reuse of the ID, a trigger before its
	// claim. The job's own stream of checkpoints does not take it.
	life sync.Mutex

	mu    sync.Mutex
	epoch uint64
	next  uint64
	// inFlight counts the job's finalizations triggered and not ended.
	inFlight int
	// retired are the ID's past incarnations, oldest first.
	retired []invariants.Retirement
	// stuck: retired and never forgotten; the job manager gave up.
	stuck bool
}

func newJob(name string, seed uint64, l *world.Lane) *job {
	return &job{
		id:   stores.JobID{Cluster: l.Cluster, Job: name},
		rng:  rand.New(rand.NewPCG(seed, 0x6a6f62)),
		lane: l,
		next: 1,
	}
}

// laneOf is the lane of a job or an intruder of the run.
func (r *run) laneOf(id stores.JobID) *world.Lane {
	if j := r.jobOf(id); j != nil {
		return j.lane
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, in := range r.intruders {
		if in.id == id {
			return in.lane
		}
	}
	return r.w.Lanes()[0]
}

// jobOf is the run's job of that ID, nil for none (an intruder).
func (r *run) jobOf(id stores.JobID) *job {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, j := range r.all {
		if j.id == id {
			return j
		}
	}
	return nil
}

// claim claims the job's next epoch through the client, riding out faults.
func (r *run) claim(ctx context.Context, j *job) error {
	j.mu.Lock()
	epoch := j.epoch + 1
	j.mu.Unlock()
	req := contract.ClaimRequest{Cluster: j.id.Cluster, Job: j.id.Job, Epoch: epoch, Owner: ownerOf(j.id, epoch)}
	var rp contract.RestorePoint
	err := pace.Retry(ctx, "claim epoch", func(ctx context.Context) (err error) { rp, err = j.lane.Client.ClaimEpoch(ctx, req); return err }, definite)
	if err != nil {
		return fmt.Errorf("claim epoch %d of %s: %w", epoch, j.id, err)
	}
	j.mu.Lock()
	j.epoch = epoch
	j.mu.Unlock()
	r.sawRestore(j, epoch, rp)
	return nil
}

// definite tells a definite refusal of a claim or retirement (invalid, or
// rejected by the store) from a call that did not get an answer.
func definite(err error) bool {
	return errors.Is(err, client.ErrInvalidRequest) || errors.Is(err, client.ErrRejected)
}

// take takes the job's next checkpoint ID, with the current epoch.
func (j *job) take() (n, epoch uint64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	n, epoch = j.next, j.epoch
	j.next++
	return n, epoch
}

// checkpoint writes the job's next checkpoint into the bucket, as a job
// manager does before it triggers, and returns its request.
func (r *run) checkpoint(ctx context.Context, j *job, savepoint bool, maxAttempts uint32) (contract.FinalizeRequest, error) {
	n, epoch := j.take()
	req, err := r.writeCheckpoint(ctx, j.id, epoch, n, savepoint)
	if err != nil {
		return req, fmt.Errorf("write checkpoint %d of %s: %w", n, j.id, err)
	}
	req.MaxPublishAttempts = maxAttempts
	return req, nil
}

// jobLoop is one job manager's stream: take a ticket, carry out the
// lifecycle steps due with it, write a checkpoint, trigger it, and keep up
// to InFlight finalizations running. A job stuck retired ends its stream.
func (r *run) jobLoop(ctx context.Context, j *job, g *gate) error {
	slots := make(chan struct{}, r.cfg.InFlight)
	for {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		t, ok := g.ticket(ctx)
		if !ok {
			<-slots
			return ctx.Err()
		}
		if ok, err := r.lifeActions(ctx, j, t); !ok || err != nil {
			return err
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
		r.waits.Add(1)
		go func() {
			defer r.waits.Done()
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
		busy = slices.Clone(r.jobs)
	}
	// A job amid a retirement or a trigger before its claim is skipped.
	rng.Shuffle(len(busy), func(a, b int) { busy[a], busy[b] = busy[b], busy[a] })
	for _, j := range busy {
		if !j.life.TryLock() {
			continue
		}
		j.mu.Lock()
		inFlight, old, stuck := j.inFlight, j.epoch, j.stuck
		j.mu.Unlock()
		if stuck {
			j.life.Unlock()
			continue
		}
		err := r.claim(ctx, j)
		j.life.Unlock()
		if err != nil {
			return 0, "", err
		}
		return 1, fmt.Sprintf("%s epoch %d -> %d with %d finalization(s) in flight", j.id.Job, old, old+1, inFlight), nil
	}
	return 0, "every job amid a retirement or a claim", nil
}
