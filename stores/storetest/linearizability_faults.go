package storetest

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Faults opens clients whose connections RunLinearizabilityTests can break
// while they run: dropped requests, dropped replies, held writes, whatever
// the backend's test proxies can do. A backend without a network passes nil.
type Faults interface {
	// Open returns a new client of h on a connection of its own, and the
	// breaker of that connection.
	Open(t *testing.T, h Harness) (stores.ReferenceStore, Breaker)
}

// Breaker breaks one client's connection.
type Breaker interface {
	// Arm arms one fault, picked with rng, for the client's next call, and
	// names it. The suite calls heal once that call has returned: heal
	// disarms a fault that has not acted, releases anything still held,
	// and reports whether the fault acted. A held request must be released
	// by the breaker itself after a while: the call waits for it.
	Arm(rng *rand.Rand) (fault string, heal func() (acted bool))
}

// PickWeighted picks one of items, each as often as its weight says; a
// weight of 0 never. For a Breaker choosing a fault, and the workload a call.
func PickWeighted[T any](rng *rand.Rand, items []T, weight func(T) int) T {
	total := 0
	for _, it := range items {
		total += weight(it)
	}
	n := rng.IntN(total)
	for _, it := range items {
		if n < weight(it) {
			return it
		}
		n -= weight(it)
	}
	panic("storetest: PickWeighted: no weight")
}

// ReleaseLater calls release d after acted closes (a request is held),
// unless healed closes first: for a Breaker's hold, which must not wait for
// the call it holds to return.
func ReleaseLater(acted, healed <-chan struct{}, d time.Duration, release func()) {
	go func() {
		select {
		case <-acted:
			time.Sleep(d)
			release()
		case <-healed:
		}
	}()
}

// Closed reports whether c is closed: whether a fault acted.
func Closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
