package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/go-zookeeper/zk"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// maxRaces bounds how often one call re-reads after losing a
// compare-and-set to a concurrent writer.
const maxRaces = 32

var errContention = errors.New("lost every compare-and-set to concurrent writers")

// step reads the current state, decides and applies one compare-and-set.
// It returns retry when the compare-and-set lost to a concurrent change.
type step func() (retry bool, err error)

// casLoop runs a step until it settles. Every lost round wrote nothing;
// running out of rounds is still reported Unknown, so that the caller
// verifies instead of trusting a count.
//
// Each round syncs first: a session's server may be a follower that lags
// behind the leader, and a rejection, or a write found already done,
// decided on its stale nodes would answer for a state the store had
// already left (a publish of a just claimed epoch Rejected as stale). The
// sync makes the reads after it see every write committed before it, so
// whatever the step decides without writing holds at a moment within the
// call; a round after a lost compare-and-set then also sees the write it
// lost to, instead of reading the same stale node again.
func (s *Store) casLoop(ctx context.Context, op string, fn step) error {
	for range maxRaces {
		if err := s.sync(ctx); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		retry, err := fn()
		if !retry {
			return err
		}
	}
	return stores.Unknownf(errContention, "%s", op)
}

// apply runs ops as one multi-op and classifies the result by which op
// failed. A lost race (the node changed, appeared or went) asks for a retry;
// no access is ErrForbidden; anything without a per-op answer is Unknown.
func (s *Store) apply(ctx context.Context, op string, ops ...any) (retry bool, err error) {
	res, err := call(ctx, func() ([]zk.MultiResponse, error) { return s.conn.Multi(ops...) })
	if err == nil {
		return false, nil
	}
	for i, r := range res {
		if r.Error == nil {
			continue
		}
		switch r.Error {
		case zk.ErrBadVersion, zk.ErrNodeExists:
			return true, nil
		case zk.ErrNoNode:
			if c, ok := ops[i].(*zk.CreateRequest); ok {
				// The job's directory is not there yet (fenced before any claim).
				if err := s.ensurePath(ctx, path.Dir(c.Path)); err != nil {
					return false, err
				}
			}
			return true, nil
		case zk.ErrNoAuth:
			return false, fmt.Errorf("%s: %w: %w", op, stores.ErrForbidden, r.Error)
		}
		return false, stores.Unknownf(r.Error, "%s: op %d of %d", op, i+1, len(ops))
	}
	return false, stores.Unknownf(err, "%s", op)
}
