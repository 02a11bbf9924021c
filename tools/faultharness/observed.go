package faultharness

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"gocloud.dev/blob"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/invariants"
)

// Observed is what a run of the finalizer outside the harness saw (the
// production topology's end-to-end test, tools/topologytest), for Check
// and Leftovers to judge with the harness's own checks. Its job managers
// wrote their checkpoints in internal/testenv/fixtures/jobmanager's layout; none of its
// jobs was retired and no reconciler kept state.
type Observed struct {
	// Store is the HA store, read on a path no fault touches.
	Store stores.ReferenceStore
	// Bucket is the state bucket's URL, as blobstate.Open takes it.
	Bucket string
	// Retain is the workers' -retain.
	Retain int
	// Finalizations are every finalization the run triggered.
	Finalizations []Outcome
	// Claims are every epoch claim and the restore point it answered.
	Claims []Claim
}

// Outcome is one finalization as its job manager saw it end.
type Outcome struct {
	Request contract.FinalizeRequest
	// Ended: the job manager saw the workflow return (Result) or fail
	// (Failure); a finalization never seen to end breaks I4.
	Ended   bool
	Result  contract.FinalizeResult
	Failure string
}

// Claim is one epoch claim and the restore point it answered.
type Claim struct {
	Job          stores.JobID
	Epoch        uint64
	RestorePoint contract.RestorePoint
}

// Check judges what o saw against the store and the bucket as they are,
// with the checks a harness run makes once it settled (run Leftovers to
// wait for that first): per job I1 (every published reference resolves to
// its handle, the handle's metadata checks, its data file and the job's
// shared file exist; a miss is confirmed by reading the key again) and I5
// (retention); per finalization I4 (it ended, Published only with its
// reference or the tombstone that removed it in the store, or subsumed
// and collected), I2 and I7 (a Discarded one's token is not and never was
// published, and no attempt could still land); I3 over a listing of the
// bucket (no handle blob or checkpoint file without a reference, savepoints
// and Abandoned finalizations' state excepted); and every claim's restore
// point (it resolves, and no finalization of an older epoch ended Published
// above it). The error is a read that failed until ctx ended: no verdict.
func Check(ctx context.Context, o Observed) ([]Violation, error) {
	c, err := open(ctx, o)
	if err != nil {
		return nil, err
	}
	defer c.close()
	fins := c.finalizations()
	jobs := map[stores.JobID]stores.JobState{}
	for _, job := range o.jobs() {
		if js, ok := c.CheckJob(ctx, job, jobmanager.SharedKey(job)); ok {
			jobs[job] = js
		}
	}
	for _, f := range fins {
		c.CheckFinalization(ctx, f, jobs[f.Request.CheckpointID().JobID])
	}
	c.CheckAtRest(ctx, invariants.ByCheckpoint(fins))
	seen := make([]invariants.Restore, 0, len(o.Claims))
	for _, cl := range o.Claims {
		seen = append(seen, invariants.Restore{Job: cl.Job, Epoch: cl.Epoch, Point: cl.RestorePoint})
	}
	c.JudgeRestores(seen, fins)
	return c.found, errors.Join(c.errs...)
}

// Leftovers counts what settling still has to do before Check: the
// references over retention and the checkpoints whose state lies in the
// bucket without a reference (what I5 and I3 would report now).
func Leftovers(ctx context.Context, o Observed) (int, error) {
	c, err := open(ctx, o)
	if err != nil {
		return 0, err
	}
	defer c.close()
	return c.Leftovers(ctx, o.jobs(), invariants.ByCheckpoint(c.finalizations()))
}

// jobs are the jobs o's finalizations and claims name, in first-seen order.
func (o Observed) jobs() []stores.JobID {
	var out []stores.JobID
	seen := map[stores.JobID]bool{}
	add := func(job stores.JobID) {
		if !seen[job] {
			seen[job] = true
			out = append(out, job)
		}
	}
	for _, cl := range o.Claims {
		add(cl.Job)
	}
	for _, f := range o.Finalizations {
		add(f.Request.CheckpointID().JobID)
	}
	return out
}

// observedChecks is a judge over an Observed run, collecting what it
// finds.
type observedChecks struct {
	*invariants.Judge
	o Observed

	mu    sync.Mutex
	found []Violation
	errs  []error
}

func open(ctx context.Context, o Observed) (*observedChecks, error) {
	if o.Store == nil {
		return nil, errors.New("faultharness: Observed.Store is nil")
	}
	states, err := blobstate.Open(ctx, o.Bucket)
	if err != nil {
		return nil, err
	}
	bucket, err := blob.OpenBucket(ctx, o.Bucket)
	if err != nil {
		_ = states.Close()
		return nil, fmt.Errorf("open the state bucket: %w", err)
	}
	c := &observedChecks{o: o}
	c.Judge = &invariants.Judge{
		Store:  func(stores.JobID) stores.ReferenceStore { return o.Store },
		States: states, Bucket: bucket, Retain: o.Retain,
		Violation: func(inv, subject, format string, args ...any) {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.found = append(c.found, Violation{Invariant: inv, Subject: subject, Detail: fmt.Sprintf(format, args...)})
		},
		HarnessError: func(err error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.errs = append(c.errs, err)
		},
	}
	return c, nil
}

func (c *observedChecks) close() {
	_ = c.Bucket.Close()
	_ = c.States.Close()
}

// finalizations are o's outcomes as the checks see finalizations.
func (c *observedChecks) finalizations() []invariants.Finalization {
	fins := make([]invariants.Finalization, 0, len(c.o.Finalizations))
	for _, out := range c.o.Finalizations {
		fins = append(fins, invariants.Finalization{Request: out.Request, Label: "observed",
			Ended: out.Ended, Result: out.Result, Failure: out.Failure})
	}
	return fins
}
