package zookeeper

import (
	"context"
	"fmt"
	"path"

	"github.com/go-zookeeper/zk"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// apply runs ops as one multi-op and classifies the result by which op
// failed. A lost race (the node changed, appeared or went) is
// stores.ErrRaced; no access is ErrForbidden; anything without a per-op
// answer is Unknown.
func (s *Store) apply(ctx context.Context, ops ...any) error {
	res, err := call(ctx, func() ([]zk.MultiResponse, error) { return s.conn.Multi(ops...) })
	if err == nil {
		return nil
	}
	for i, r := range res {
		if r.Error == nil {
			continue
		}
		switch r.Error {
		case zk.ErrBadVersion, zk.ErrNodeExists:
			return fmt.Errorf("%w: op %d of %d: %w", stores.ErrRaced, i+1, len(ops), r.Error)
		case zk.ErrNoNode:
			if c, ok := ops[i].(*zk.CreateRequest); ok {
				// The job's directory is not there yet (fenced before any claim).
				if err := s.ensurePath(ctx, path.Dir(c.Path)); err != nil {
					return err
				}
			}
			return fmt.Errorf("%w: op %d of %d: %w", stores.ErrRaced, i+1, len(ops), r.Error)
		case zk.ErrNoAuth:
			return fmt.Errorf("%w: %w", stores.ErrForbidden, r.Error)
		}
		return stores.Unknownf(r.Error, "op %d of %d", i+1, len(ops))
	}
	return stores.Unknownf(err, "multi-op")
}
