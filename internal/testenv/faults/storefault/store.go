// Package storefault wraps a real reference store and makes its calls
// ambiguous on purpose: scripted faults per operation, random faults at a
// rate, or an outage during which every call is Unknown. The store's own
// semantics stay the real ones; only the caller's knowledge of the outcome
// is taken away. Tests, the dev mode's demo and the fault harness use it.
package storefault

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Fault is what happens to one call.
type Fault int

const (
	// None lets the call through.
	None Fault = iota
	// DropReply applies the call, then reports Unknown (FLINK-22494).
	DropReply
	// DropRequest reports Unknown without applying the call.
	DropRequest
)

func (f Fault) String() string {
	switch f {
	case DropReply:
		return "drop-reply"
	case DropRequest:
		return "drop-request"
	default:
		return "none"
	}
}

// Operations that can be faulted.
const (
	OpPublish = "publish"
	OpVerify  = "verify"
	OpSubsume = "subsume"
)

// ErrInjected is the cause of every injected Unknown.
var ErrInjected = errors.New("injected fault: connection lost")

// Store is a reference store with injected ambiguity.
type Store struct {
	stores.ReferenceStore

	mu          sync.Mutex
	script      map[string][]Fault
	unreachable bool
	rate        float64
	rng         *rand.Rand
	plans       map[string][]Fault
	calls       map[string]int
	injected    map[Fault]int
	// hook, when set, runs before each faultable call with its ordinal.
	hook func(op string, call int)
}

// Wrap wraps inner.
func Wrap(inner stores.ReferenceStore) *Store {
	return &Store{ReferenceStore: inner, script: map[string][]Fault{}, plans: map[string][]Fault{},
		calls: map[string]int{}, injected: map[Fault]int{}}
}

// Inject queues faults for the next calls of op.
func (s *Store) Inject(op string, faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script[op] = append(s.script[op], faults...)
}

// SetUnreachable starts or ends an outage.
func (s *Store) SetUnreachable(v bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unreachable = v
}

// Plans are the random fault sequences one publish attempt can meet, in
// Temporal's tries of it: a lost reply that the retry finds (Published), a
// lost reply on every try (Verify finds it Present), and a lost request on
// every try (Verify fences Absent, the next attempt publishes).
var Plans = [][]Fault{
	{DropReply},
	{DropReply, DropRequest, DropRequest},
	{DropRequest, DropRequest, DropRequest},
}

// SetRandom gives each first publish attempt, with probability rate, one of
// Plans at random, played over the calls of that attempt. Later attempts
// meet no random fault, so a finalization publishes by its second attempt.
func (s *Store) SetRandom(rate float64, rng *rand.Rand) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rate, s.rng = rate, rng
}

// OnCall sets a hook run before each faultable call, with the call's
// ordinal for its operation (1 for the first).
func (s *Store) OnCall(hook func(op string, call int)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook = hook
}

// Calls counts the calls of op so far.
func (s *Store) Calls(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[op]
}

// Injected counts the faults of a kind injected so far.
func (s *Store) Injected(f Fault) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.injected[f]
}

func (s *Store) next(op, key string) Fault {
	s.mu.Lock()
	s.calls[op]++
	hook, call := s.hook, s.calls[op]
	f := s.pick(op, key)
	if f != None {
		s.injected[f]++
	}
	s.mu.Unlock()
	if hook != nil {
		hook(op, call)
	}
	return f
}

// pick chooses the fault of one call of op on key; s.mu is held.
func (s *Store) pick(op, key string) Fault {
	switch {
	case s.unreachable:
		return DropRequest
	case len(s.script[op]) > 0:
		f := s.script[op][0]
		s.script[op] = s.script[op][1:]
		return f
	case op != OpPublish || s.rng == nil || key == "":
		return None
	}
	plan, seen := s.plans[key]
	if !seen && s.rng.Float64() < s.rate {
		plan = Plans[s.rng.IntN(len(Plans))]
	}
	if len(plan) == 0 {
		s.plans[key] = nil
		return None
	}
	s.plans[key] = plan[1:]
	return plan[0]
}

func (s *Store) apply(op, key string, call func() error) error {
	switch s.next(op, key) {
	case DropRequest:
		return stores.Unknownf(ErrInjected, "%s", op)
	case DropReply:
		if err := call(); err != nil {
			return err
		}
		return stores.Unknownf(ErrInjected, "%s", op)
	}
	return call()
}

// Publish implements stores.ReferenceStore.
func (s *Store) Publish(ctx context.Context, p stores.Publication) error {
	key := "" // random plans meet first attempts only
	if p.Reference.Attempt == 1 {
		key = fmt.Sprintf("%s/%d", p.CheckpointID, p.Reference.Attempt)
	}
	return s.apply(OpPublish, key, func() error { return s.ReferenceStore.Publish(ctx, p) })
}

// Verify implements stores.ReferenceStore.
func (s *Store) Verify(ctx context.Context, id stores.CheckpointID, token string, attempt uint32) (stores.Verdict, error) {
	var v stores.Verdict
	err := s.apply(OpVerify, id.String(), func() (err error) {
		v, err = s.ReferenceStore.Verify(ctx, id, token, attempt)
		return err
	})
	if err != nil {
		return stores.VerdictUnknown, err
	}
	return v, nil
}

// Subsume implements stores.ReferenceStore.
func (s *Store) Subsume(ctx context.Context, id stores.CheckpointID, epoch uint64) error {
	return s.apply(OpSubsume, id.String(), func() error { return s.ReferenceStore.Subsume(ctx, id, epoch) })
}
