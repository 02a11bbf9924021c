package faultharness

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/internal/pace"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/world"
)

// run is one Run in progress.
type run struct {
	cfg Config
	w   *world.World
	rep *Report
	// settleCtx bounds every wait for a finalization: the run's context
	// plus SettleTimeout from the moment the faults heal.
	settleCtx context.Context

	// waits counts the finalizations still running and the adversarial
	// requests under way.
	waits sync.WaitGroup
	// plan is the lifecycle steps due at each ticket of the random phase.
	plan map[int][]lifeAction

	mu   sync.Mutex
	fins []*finalization
	jobs []*job // the random phase's jobs
	all  []*job // every job, targeted ones included
	// intruders send the foreign-directory requests, one per lane.
	intruders []*intruder
	// advs are the adversarial requests' finalizations (not in fins: they
	// are judged apart, never replayed).
	advs []*finalization
	// kept are the handle keys the reconciler reported and kept, with why.
	kept map[string]string
	// restores are the restore points the claims answered.
	restores []restoreSeen
}

func (r *run) record(f *finalization) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fins = append(r.fins, f)
}

func (r *run) finalizations() []*finalization {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*finalization(nil), r.fins...)
}

func (r *run) harnessError(err error) {
	r.cfg.Logger.Warn("harness error", "error", err)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rep.HarnessErrors = append(r.rep.HarnessErrors, err.Error())
}

func (r *run) violation(inv, subject, format string, args ...any) {
	v := Violation{Invariant: inv, Subject: subject, Detail: fmt.Sprintf(format, args...)}
	r.cfg.Logger.Warn("invariant violated", "invariant", v.Invariant, "subject", v.Subject, "detail", v.Detail)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rep.Violations = append(r.rep.Violations, v)
}

// Run starts a world of real servers, runs the targeted scenarios and K
// finalizations under F random faults, heals, checks the invariants and
// simulates a recovery. The error is for a run that could not be carried
// out (servers that would not start); violations are in the report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("fault harness configuration: %w", err)
	}
	cfg = cfg.withDefaults()
	began := time.Now()
	mode := "real"
	if cfg.Naive {
		mode = "naive"
	}
	rep := &Report{Mode: mode, Store: cfg.Store, Seed: cfg.Seed, Jobs: cfg.Jobs, Finalizations: cfg.Finalizations,
		Workers: cfg.Workers, Retain: cfg.Retain, Outcomes: map[string]int{}, Missing: missingKinds(cfg.Store)}

	w, err := world.Start(ctx, cfg.world())
	if err != nil {
		return nil, err
	}
	rep.Workers = w.WorkerCount()
	r := &run{cfg: cfg, w: w, rep: rep, kept: map[string]string{}}
	failed := true
	defer func() { w.Close(failed) }()

	// settleCtx starts unbounded and gets its deadline once faults heal.
	settleCtx, cancelSettle := context.WithCancel(ctx)
	defer cancelSettle()
	r.settleCtx = settleCtx

	seed := uint64(cfg.Seed)
	cfg.Logger.Info("targeted scenarios")
	if err := r.targeted(ctx, seed); err != nil {
		return nil, err
	}
	cfg.Logger.Info("random phase", "finalizations", cfg.Finalizations, "faults", cfg.Faults, "jobs", cfg.Jobs,
		"retirements", cfg.Retirements, "adversarial", cfg.Adversarial)
	// The reconciler and the continuous check run from the random phase
	// until the run has settled.
	stopLife := r.background(ctx)
	if err := r.randomPhase(ctx, seed); err != nil {
		stopLife()
		return nil, err
	}

	cfg.Logger.Info("healing")
	if err := pace.Retry(ctx, "heal", w.Heal, nil); err != nil {
		return nil, err
	}
	healed := time.Now()
	deadline, cancelDeadline := context.WithTimeout(ctx, cfg.SettleTimeout)
	defer cancelDeadline()
	stop := context.AfterFunc(deadline, cancelSettle)
	defer stop()
	r.waits.Wait()
	rep.Converge = time.Since(healed)
	cfg.Logger.Info("every finalization ended", "converge", rep.Converge)
	if err := r.closing(deadline); err != nil {
		r.harnessError(err)
	}
	r.settle(deadline)
	rep.Settle = time.Since(healed)
	stopLife()

	cfg.Logger.Info("checking invariants")
	r.check(ctx)
	r.paths(ctx)
	r.replaySweep(ctx, rand.New(rand.NewPCG(seed, 0x72706c)))
	cfg.Logger.Info("simulated recovery")
	r.recover(ctx)
	r.checkRestores()
	rep.Evidence = w.Evidence()
	rep.Duration = time.Since(began)
	failed = errors.Is(ctx.Err(), context.Canceled) || (!cfg.Naive && len(rep.Violations) > 0)
	return rep, nil
}

// randomPhase runs the jobs and the fault schedule side by side and
// returns once every finalization was triggered and every fault injected
// and healed; r.waits counts the finalizations still running.
func (r *run) randomPhase(parent context.Context, seed uint64) error {
	// A job that fails stops the faults too: they wait for its triggers.
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	for i := range r.cfg.Jobs {
		j := newJob(fmt.Sprintf("job-%d", i+1), seed+uint64(i)+1, r.w.Lanes()[i%len(r.w.Lanes())])
		r.mu.Lock()
		r.jobs = append(r.jobs, j)
		r.all = append(r.all, j)
		r.mu.Unlock()
	}
	for _, j := range r.jobs {
		if err := r.claim(ctx, j); err != nil {
			return err
		}
	}
	if r.cfg.Adversarial > 0 {
		if err := r.startIntruders(ctx, seed); err != nil {
			return err
		}
	}
	r.plan = lifePlan(rand.New(rand.NewPCG(seed, 0x6c696665)), r.cfg.Finalizations, r.cfg.Retirements, r.cfg.Adversarial)
	g := newGate(r.cfg.Finalizations, r.cfg.Faults)
	rng := rand.New(rand.NewPCG(seed, 0x666c74))
	kinds := plan(rng, r.cfg.Kinds, r.cfg.Faults)
	pick := rand.New(rand.NewPCG(seed, 0x7069636b))

	errs := make(chan error, len(r.jobs)+1)
	began := time.Now()
	var loops sync.WaitGroup
	running := len(r.jobs)
	for _, j := range r.jobs {
		loops.Add(1)
		go func() {
			defer loops.Done()
			if err := r.jobLoop(ctx, j, g); err != nil {
				errs <- fmt.Errorf("job %s: %w", j.id, err)
				cancel()
			}
			// Once no job takes tickets (the last gave up on a job stuck
			// retired), the faults wait for none.
			r.mu.Lock()
			running--
			last := running == 0
			r.mu.Unlock()
			if last {
				g.close()
			}
		}()
	}
	loops.Add(1)
	go func() {
		defer loops.Done()
		for i, kind := range kinds {
			g.startFault(ctx, i)
			if ctx.Err() != nil {
				return
			}
			rec := r.inject(ctx, kind, rng, pick)
			rec.At = time.Since(began)
			r.cfg.Logger.Info("fault", "n", i+1, "of", len(kinds), "kind", rec.Kind, "hits", rec.Hits,
				"detail", rec.Detail, "error", rec.Error, "took", rec.Took.Round(time.Millisecond), "triggered", g.triggered())
			r.mu.Lock()
			r.rep.Faults = append(r.rep.Faults, rec)
			r.mu.Unlock()
			// A breath between faults, so that each one meets a system at work.
			pace.Sleep(ctx, pace.Between(rng, 100*time.Millisecond, 600*time.Millisecond))
		}
	}()
	loops.Wait()
	close(errs)
	for err := range errs {
		return err
	}
	return parent.Err()
}
