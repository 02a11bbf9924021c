package client_test

import (
	"testing"

	"github.com/checkpoint-finalizer/finalizer/e2e/harness"
)

// One dev server for the whole test binary; each test runs its own worker.
func TestMain(m *testing.M) { harness.Main(m) }
