package storetest

import (
	"math/rand/v2"
	"testing"

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
