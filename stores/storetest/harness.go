package storetest

import (
	"testing"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Harness is one isolated store namespace of a backend.
type Harness interface {
	// Open returns a new client on the harness's data: two clients of one
	// harness see the same keys, as two job managers or workers would. The
	// suite never closes a store; the harness cleans up after the test.
	Open(t *testing.T) stores.ReferenceStore
}

// HarnessMaker makes a fresh harness with data of its own for each test.
type HarnessMaker func(t *testing.T) Harness
