package lifecycle

import (
	"context"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Exploration is what a run of many schedules found.
type Exploration struct {
	Schedules int
	Elapsed   time.Duration
	// Steps counts the steps run; Seen what they reached, summed.
	Steps int
	Seen  map[string]int
	// Failures are the distinct failures (by property and kind of step),
	// each shrunk and described, in the order of their seeds.
	Failures []string
}

// maxFailures bounds the distinct failures shrunk in one exploration.
const maxFailures = 12

// Explore runs schedules seeds first, first+1, ... on parallel worlds (one
// store file and bucket per goroutine, under dir) and shrinks the first
// failure of each distinct kind.
func Explore(ctx context.Context, dir string, first uint64, schedules, parallel int) (Exploration, error) {
	start := time.Now()
	var (
		next  atomic.Uint64
		mu    sync.Mutex
		found = map[string]*failure{}
		steps int
		seen  = map[string]int{}
		wg    sync.WaitGroup
		errs  = make([]error, parallel)
	)
	next.Store(first)
	last := first + uint64(schedules)
	for p := range parallel {
		wg.Go(func() {
			pdir, err := os.MkdirTemp(dir, "world-")
			if err != nil {
				errs[p] = err
				return
			}
			w, err := newWorld(pdir)
			if err != nil {
				errs[p] = err
				return
			}
			defer func() { _ = w.closeStores() }()
			for seed := next.Add(1) - 1; seed < last; seed = next.Add(1) - 1 {
				f, n, err := generate(ctx, w, seed)
				if err != nil {
					errs[p] = err
					return
				}
				mu.Lock()
				steps += n
				for k, v := range w.seen {
					seen[k] += v
				}
				if f == nil {
					mu.Unlock()
					continue
				}
				sig := f.signature()
				old, seen := found[sig]
				if seen && old.seed < seed || len(found) >= maxFailures && !seen {
					mu.Unlock()
					continue
				}
				found[sig] = f
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return Exploration{}, err
		}
	}
	ex := Exploration{Schedules: schedules, Elapsed: time.Since(start), Steps: steps, Seen: seen}
	if len(found) == 0 {
		return ex, nil
	}
	w, err := newWorld(dir)
	if err != nil {
		return ex, err
	}
	defer func() { _ = w.closeStores() }()
	fs := make([]*failure, 0, len(found))
	for _, f := range found {
		fs = append(fs, f)
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].seed < fs[j].seed })
	shrunk := map[string]bool{}
	for _, f := range fs {
		small, err := shrink(ctx, w, f)
		if err != nil {
			return ex, err
		}
		if sig := small.signature(); !shrunk[sig] {
			shrunk[sig] = true
			ex.Failures = append(ex.Failures, describe(ctx, w, small))
		}
	}
	return ex, nil
}
