package stores

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Engine is the ReferenceStore and Inventory semantics over a Driver:
// every call validates its input before anything is read, decides with the
// functions of decide.go on what one Load returned, and commits with one
// conditional change; a lost compare-and-set reads and decides again. A
// backend embeds an Engine and adds what only it can do (listing the
// cluster's jobs, probing, closing).
type Engine struct {
	driver Driver
	// passes bounds how often one call reads and decides: every lost pass
	// wrote nothing, but running out is Unknown all the same.
	passes int
}

// DefaultPasses is how often a call reads and decides at most unless the
// backend's configuration says otherwise.
const DefaultPasses = 32

// NewEngine returns the engine over d making at most passes passes (0:
// DefaultPasses).
func NewEngine(d Driver, passes int) *Engine {
	if passes <= 0 {
		passes = DefaultPasses
	}
	return &Engine{driver: d, passes: passes}
}

// decision is one pass of a call: the change to commit, nil when what the
// caller asked for already stands, or a definite rejection. It runs again
// after every lost pass, so it keeps no state across calls except its
// latest answer.
type decision func(snap Snapshot) (*Change, error)

// Backoff between passes after a lost compare-and-set: short and jittered,
// because the competitor has already written and a re-read settles it.
const (
	raceBackoffMin = 5 * time.Millisecond
	raceBackoffMax = 200 * time.Millisecond
)

// mutate is the one compare-and-set loop of every mutating call: load,
// decide, commit. A decision that writes nothing stands once Settle shows
// the snapshot unchanged, unless keyOnly says it read one key alone (read
// at one moment by any Load).
func (e *Engine) mutate(ctx context.Context, op string, job JobID, scope Scope, keyOnly bool, decide decision) error {
	var lastErr error
	for pass := 1; pass <= e.passes; pass++ {
		if pass > 1 {
			if err := sleep(ctx, backoff(pass, lastErr)); err != nil {
				return Unknownf(errors.Join(err, lastErr), "%s: waiting to retry", op)
			}
		}
		snap, err := e.driver.Load(ctx, job, scope)
		if err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		c, answer := decide(snap)
		if answer != nil || c == nil || c.empty() {
			if keyOnly {
				return answer
			}
			err = e.driver.Settle(ctx, snap)
			if err == nil {
				return answer
			}
		} else {
			err = e.driver.Commit(ctx, snap, *c)
			if err == nil {
				return nil
			}
		}
		if !errors.Is(err, ErrRaced) {
			return fmt.Errorf("%s: %w", op, err)
		}
		lastErr = err
	}
	return Unknownf(errors.Join(ErrContention, lastErr), "%s: gave up after %d passes", op, e.passes)
}

// backoff is the wait before pass: what a throttling server asked for, or
// a jittered delay growing with the pass.
func backoff(pass int, err error) time.Duration {
	if t := (*ThrottledError)(nil); errors.As(err, &t) && t.Wait > 0 {
		return t.Wait
	}
	d := min(raceBackoffMin<<min(pass, 6), raceBackoffMax)
	return d/2 + rand.N(d/2+1)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// read loads the job once for a read-only call; a read of every key
// stands once Settle shows it was one moment, a read of the state or of one
// key is.
func (e *Engine) read(ctx context.Context, op string, job JobID, scope Scope) (Snapshot, error) {
	var snap Snapshot
	err := e.mutate(ctx, op, job, scope, !scope.all, func(s Snapshot) (*Change, error) {
		snap = s
		return nil, nil
	})
	return snap, err
}

// key is the one entry of a KeyOf snapshot.
func (s Snapshot) key() Entry { return s.Entries[0] }
