package workflows_test

import (
	"context"
	"errors"
	"sync"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// fault is what the faulty store does to one call.
type fault int

const (
	// dropReply applies the call, then reports Unknown (FLINK-22494).
	dropReply fault = iota + 1
	// dropRequest reports Unknown without applying the call.
	dropRequest
)

var errInjected = errors.New("injected: connection lost")

// faultyStore wraps a real store (the embedded one, on a temp file) and
// injects ambiguity: scripted faults per operation, or an outage during
// which every call is Unknown. The store's semantics stay the real ones.
type faultyStore struct {
	stores.ReferenceStore
	mu          sync.Mutex
	script      map[string][]fault
	unreachable bool
	calls       map[string]int
	// beforeRetry, when set, runs once before the second call of publish.
	beforeRetry func()
}

func newFaultyStore(inner stores.ReferenceStore) *faultyStore {
	return &faultyStore{ReferenceStore: inner, script: map[string][]fault{}, calls: map[string]int{}}
}

func (s *faultyStore) inject(op string, faults ...fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script[op] = append(s.script[op], faults...)
}

func (s *faultyStore) setUnreachable(v bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unreachable = v
}

func (s *faultyStore) count(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[op]
}

// next returns the fault for this call of op, 0 for none.
func (s *faultyStore) next(op string) fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[op]++
	if op == "publish" && s.calls[op] == 2 && s.beforeRetry != nil {
		s.beforeRetry()
	}
	if s.unreachable {
		return dropRequest
	}
	if q := s.script[op]; len(q) > 0 {
		s.script[op] = q[1:]
		return q[0]
	}
	return 0
}

func (s *faultyStore) apply(op string, call func() error) error {
	switch s.next(op) {
	case dropRequest:
		return stores.Unknownf(errInjected, "%s", op)
	case dropReply:
		if err := call(); err != nil {
			return err
		}
		return stores.Unknownf(errInjected, "%s", op)
	}
	return call()
}

func (s *faultyStore) Publish(ctx context.Context, p stores.Publication) error {
	return s.apply("publish", func() error { return s.ReferenceStore.Publish(ctx, p) })
}

func (s *faultyStore) Verify(ctx context.Context, id stores.CheckpointID, token string, attempt uint32) (stores.Verdict, error) {
	var v stores.Verdict
	err := s.apply("verify", func() (err error) {
		v, err = s.ReferenceStore.Verify(ctx, id, token, attempt)
		return err
	})
	if err != nil {
		return stores.VerdictUnknown, err
	}
	return v, nil
}

func (s *faultyStore) Subsume(ctx context.Context, id stores.CheckpointID, epoch uint64) error {
	return s.apply("subsume", func() error { return s.ReferenceStore.Subsume(ctx, id, epoch) })
}
