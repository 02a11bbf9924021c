package client_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/checkpoint-finalizer/finalizer/client"
)

func TestStuckAndVerifyingQueries(t *testing.T) {
	t.Parallel()
	cutoff := time.Date(2026, 3, 1, 12, 30, 15, 999_000_000, time.FixedZone("CET", 3600))
	assert.Equal(t,
		`FinalizationPhase = "Verifying" AND PhaseSince < "2026-03-01T11:30:15Z" AND ExecutionStatus = "Running"`,
		client.VerifyingQuery(cutoff))
	assert.Equal(t,
		`FinalizationPhase IN ("Persisting", "Publishing", "Verifying", "Discarding", "Subsuming") AND PhaseSince < "2026-03-01T11:30:15Z" AND ExecutionStatus = "Running"`,
		client.StuckQuery(cutoff))
}
