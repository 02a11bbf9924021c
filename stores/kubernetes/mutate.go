package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// decideFunc is one pass of a mutating call over a fresh snapshot: the
// change to write, nil when what the caller asked for already stands, or a
// definite rejection. It is called again after every re-read, so it must
// not keep state across calls except its latest answer.
type decideFunc func(snap *snapshot) (*change, error)

// Backoff between passes after a conflict: short and jittered, because
// the competitor has already written and a re-read settles it.
const (
	conflictBackoffMin = 5 * time.Millisecond
	conflictBackoffMax = 200 * time.Millisecond
	throttleFallback   = time.Second
)

// mutate is the one compare-and-set loop every mutating call goes through:
// quorum read, decide, one conditional Create or Update; on 409,
// AlreadyExists, NotFound-on-Update or 429 read and decide again, at most
// MaxAttempts passes. fits bounds the written ConfigMap's size.
func (s *Store) mutate(ctx context.Context, op string, job stores.JobID, fits sizeRule, decide decideFunc) error {
	if err := s.checkOpen(op); err != nil {
		return err
	}
	name, err := ConfigMapName(job)
	if err != nil {
		return err
	}
	log := s.log.With("op", op, "configmap", name)
	var lastErr error
	delay := time.Duration(0)
	for pass := 1; pass <= s.cfg.MaxAttempts; pass++ {
		if delay > 0 {
			if err := sleep(ctx, delay); err != nil {
				return stores.Unknownf(errors.Join(err, lastErr), "%s: waiting to retry", op)
			}
		}
		cm, err := s.get(ctx, name)
		if err != nil {
			return failRead(op, err)
		}
		snap, err := newSnapshot(job, s.namespace, name, cm)
		if err != nil {
			return decodeFailure(op, err)
		}
		c, err := decide(snap)
		if err != nil {
			return err
		}
		if c == nil {
			return nil
		}
		obj, err := snap.apply(*c, fits)
		if err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		create := snap.cm == nil
		if create {
			err = s.create(ctx, obj)
		} else {
			err = s.update(ctx, obj)
		}
		if err == nil {
			return nil
		}
		switch class := classify(err, create); class {
		case classReread:
			log.DebugContext(ctx, "conditional write lost a race, reading again", "pass", pass, "err", err)
			delay = jitter(pass)
		case classThrottled:
			delay = retryAfter(err, throttleFallback)
			log.InfoContext(ctx, "throttled by the API server, reading again", "pass", pass, "wait", delay, "err", err)
		case classRefused:
			return fmt.Errorf("%s: %w: %w", op, refusal(err), err)
		case classTooLarge:
			return fmt.Errorf("%s: %w: %w", op, stores.ErrTooLarge, err)
		default:
			log.WarnContext(ctx, "write outcome unknown", "pass", pass, "err", err)
			return stores.Unknownf(err, "%s", op)
		}
		lastErr = err
	}
	log.WarnContext(ctx, "out of attempts", "attempts", s.cfg.MaxAttempts, "err", lastErr)
	return stores.Unknownf(lastErr, "%s: gave up after %d attempts", op, s.cfg.MaxAttempts)
}

// decodeFailure names the call refused over what the ConfigMap holds: a
// foreign ConfigMap under our name, content we cannot decode. The error
// wraps stores.ErrCorruptState, so it is Unknown: an operator sees a stuck
// verification instead of a guess.
func decodeFailure(op string, err error) error {
	return fmt.Errorf("%s: %w", op, err)
}

func jitter(pass int) time.Duration {
	d := conflictBackoffMin << min(pass, 6)
	d = min(d, conflictBackoffMax)
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
