package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

// summary tallies the demo's finalizations.
type summary struct {
	mu                                             sync.Mutex
	published, verified, fenced, discarded, others int
	retained                                       map[string][]uint64
	injected                                       int
}

func (s *summary) add(res contract.FinalizeResult, st contract.Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch res.Phase {
	case contract.Published:
		s.published++
	case contract.Discarded:
		s.discarded++
	default:
		s.others++
	}
	if st.Verifications > 0 {
		s.verified++
	}
	s.fenced += st.Fences
}

func (s *summary) print(w io.Writer) {
	fmt.Fprintf(w, "\nsummary: published %d, verified %d, fenced %d, discarded %d, other %d; %d ambiguous publish calls injected\n",
		s.published, s.verified, s.fenced, s.discarded, s.others, s.injected)
	for job, ids := range s.retained {
		fmt.Fprintf(w, "  retained for %s: checkpoints %v\n", job, ids)
	}
}

// demo plays job managers: each claims a fresh epoch and finalizes a stream
// of checkpoints. The first job's leader is then deposed, and its last
// checkpoint, triggered by the deposed epoch, is rejected and discarded.
func demo(ctx context.Context, s settings, r worker.Ready) (*summary, error) {
	c := client.New(r.Client, client.Options{})
	sum := &summary{retained: map[string][]uint64{}}
	// Epochs and checkpoint IDs grow across runs on the same store.
	epoch := uint64(time.Now().Unix())
	var wg sync.WaitGroup
	errs := make(chan error, s.jobs)
	for i := 1; i <= s.jobs; i++ {
		jm := jobManager{c: c, s: s, sum: sum, job: fmt.Sprintf("demo-job-%d", i), epoch: epoch}
		wg.Go(func() {
			if err := jm.run(ctx, i == 1); err != nil {
				errs <- fmt.Errorf("%s: %w", jm.job, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		return nil, err
	}
	for i := 1; i <= s.jobs; i++ {
		job := fmt.Sprintf("demo-job-%d", i)
		v, err := r.Client.QueryWorkflow(ctx, contract.CoordinatorID(cluster, job), "", contract.StatusQuery)
		var st contract.CoordinatorStatus
		if err == nil && v.Get(&st) == nil {
			sum.retained[job] = st.Retained
		}
	}
	return sum, nil
}

const cluster = "dev"

type jobManager struct {
	c     *client.Client
	s     settings
	sum   *summary
	job   string
	epoch uint64
}

func (jm jobManager) run(ctx context.Context, depose bool) error {
	if _, err := jm.c.ClaimEpoch(ctx, contract.ClaimRequest{Cluster: cluster, Job: jm.job, Epoch: jm.epoch, Owner: jobmanager.Owner(jm.epoch)}); err != nil {
		return err
	}
	base := jm.epoch * 1000
	for k := uint64(1); k <= uint64(jm.s.checkpoints); k++ {
		if depose && k == uint64(jm.s.checkpoints) {
			// A new leader takes over; the old one's last trigger is a zombie.
			if _, err := jm.c.ClaimEpoch(ctx, contract.ClaimRequest{Cluster: cluster, Job: jm.job, Epoch: jm.epoch + 1, Owner: jobmanager.Owner(jm.epoch + 1)}); err != nil {
				return err
			}
			fmt.Printf("%s: epoch %d claimed by a new leader; the old leader triggers one more checkpoint\n", jm.job, jm.epoch+1)
		}
		if err := jm.finalize(ctx, base+k); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(jm.s.interval):
		}
	}
	return nil
}

func (jm jobManager) finalize(ctx context.Context, n uint64) error {
	job := stores.JobID{Cluster: cluster, Job: jm.job}
	req, err := jobmanager.Bucket{Dir: bucketDir(jm.s)}.WriteCheckpoint(job, jm.epoch, n, false)
	if err != nil {
		return err
	}
	started := time.Now()
	f, err := jm.c.Finalize(ctx, req)
	if err != nil {
		return err
	}
	res, err := f.Wait(ctx)
	if err != nil {
		return err
	}
	st, err := f.Status(ctx)
	if err != nil {
		return err
	}
	jm.sum.add(res, st)
	line := fmt.Sprintf("%s checkpoint %d: %-9s attempts %d", jm.job, n, res.Phase, res.Attempts)
	if st.Verifications > 0 {
		line += fmt.Sprintf(", verified %dx", st.Verifications)
	}
	if st.Fences > 0 {
		line += fmt.Sprintf(", fenced %dx", st.Fences)
	}
	if res.Reason != "" {
		line += ", " + res.Reason
	}
	fmt.Printf("%s (%s)\n", line, time.Since(started).Round(time.Millisecond))
	return nil
}
