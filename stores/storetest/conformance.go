package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// RunConformanceTests runs the whole suite against the backend. Every
// backend implements stores.Inventory too; the suite holds it to that.
func RunConformanceTests(t *testing.T, newHarness HarnessMaker) {
	tests := []struct {
		name string
		fn   func(t *testing.T, h Harness)
	}{
		{"PublishReadList", testPublishReadList},
		{"IdempotentRepublish", testIdempotentRepublish},
		{"AnotherTokenRejected", testAnotherTokenRejected},
		{"StaleEpochRejected", testStaleEpochRejected},
		{"ClaimEpoch", testClaimEpoch},
		{"BelowWatermarkRejected", testBelowWatermarkRejected},
		{"VerifyPresent", testVerifyPresent},
		{"VerifyFencesAbsent", testVerifyFencesAbsent},
		{"VerifyAnotherTokenAbsent", testVerifyAnotherTokenAbsent},
		{"RepublishReplacesOwnTombstone", testRepublishReplacesOwnTombstone},
		{"Subsume", testSubsume},
		{"RetireAndCollect", testRetireAndCollect},
		{"RetireRetained", testRetireRetained},
		{"ResubmitAfterRetire", testResubmitAfterRetire},
		{"CollectKeepsFencesAboveWatermark", testCollectKeepsFencesAboveWatermark},
		{"CollectSubsumed", testCollectSubsumed},
		{"Release", testRelease},
		{"ConcurrentPublishers", testConcurrentPublishers},
		{"ConcurrentVerifyAndPublish", testConcurrentVerifyAndPublish},
		{"InvalidInputWritesNothing", testInvalidInputWritesNothing},
		{"ListJobs", testListJobs},
		{"ListEntries", testListEntries},
		{"Quarantine", testQuarantine},
		{"ConcurrentQuarantine", testConcurrentQuarantine},
		{"RestorePointUnderRetention", testRestorePointUnderRetention},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(t, newHarness(t))
		})
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

var testJob = stores.JobID{Cluster: "conformance", Job: "0a1b2c3d4e5f60718293a4b5c6d7e8f9"}

func checkpoint(n uint64) stores.CheckpointID {
	return stores.CheckpointID{JobID: testJob, Checkpoint: n}
}

func publication(n uint64, epoch uint64, token string, attempt uint32) stores.Publication {
	return stores.Publication{
		CheckpointID: checkpoint(n),
		Epoch:        epoch,
		Reference: stores.Reference{
			Handle:  fmt.Sprintf("handles/%s/%019d.json", testJob, n),
			Token:   token,
			Attempt: attempt,
		},
	}
}

func claim(t *testing.T, s stores.ReferenceStore, epoch uint64) {
	t.Helper()
	require.NoError(t, s.ClaimEpoch(ctx(t), testJob, epoch, fmt.Sprintf("jm-%d", epoch)))
}

func publish(t *testing.T, s stores.ReferenceStore, p stores.Publication) {
	t.Helper()
	require.NoError(t, s.Publish(ctx(t), p))
}

// requireRejected asserts a definite rejection for the given reason.
func requireRejected(t *testing.T, err error, reason error) {
	t.Helper()
	require.Error(t, err)
	assert.Equal(t, stores.Rejected, stores.OutcomeOf(err), "error %v", err)
	assert.ErrorIs(t, err, reason)
}

func read(t *testing.T, s stores.ReferenceStore, n uint64) stores.Entry {
	t.Helper()
	e, err := s.Read(ctx(t), checkpoint(n))
	require.NoError(t, err)
	return e
}

func verify(t *testing.T, s stores.ReferenceStore, n uint64, token string, attempt uint32) stores.Verdict {
	t.Helper()
	v, err := s.Verify(ctx(t), checkpoint(n), token, attempt)
	require.NoError(t, err)
	return v
}
