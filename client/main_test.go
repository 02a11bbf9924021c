package client_test

import (
	"testing"

	"github.com/checkpoint-finalizer/finalizer/client/internal/e2e"
)

// One dev server for the whole test binary; each test runs its own worker.
func TestMain(m *testing.M) { e2e.Main(m) }
