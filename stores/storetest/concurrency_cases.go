package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

func now() time.Time { return time.Now() }

// Exactly one token wins a key; no two callers both see Published with
// different tokens.
func testConcurrentPublishers(t *testing.T, h Harness) {
	const publishers = 8
	claim(t, h.Open(t), 1)
	clients := make([]stores.ReferenceStore, publishers)
	for i := range clients {
		clients[i] = h.Open(t)
	}
	for round := uint64(1); round <= 5; round++ {
		errs := make([]error, publishers)
		var wg sync.WaitGroup
		for i, c := range clients {
			wg.Go(func() {
				errs[i] = c.Publish(ctx(t), publication(round, 1, fmt.Sprintf("tok-%d", i), 1))
			})
		}
		wg.Wait()

		winners := 0
		var winner string
		for i, err := range errs {
			switch stores.OutcomeOf(err) {
			case stores.Published:
				winners++
				winner = fmt.Sprintf("tok-%d", i)
			case stores.Rejected:
				assert.ErrorIs(t, err, stores.ErrConflict)
			}
		}
		require.Equal(t, 1, winners, "round %d: errors %v", round, errs)
		assert.Equal(t, winner, read(t, clients[0], round).Reference.Token)
	}
}

// A publish racing a verify of the same attempt never both "win": the
// publisher cannot see Published while the verifier sees a fenced Absent.
func testConcurrentVerifyAndPublish(t *testing.T, h Harness) {
	pub, ver := h.Open(t), h.Open(t)
	claim(t, pub, 1)
	var present, absent int
	for n := uint64(1); n <= 20; n++ {
		var pubErr, verErr error
		var verdict stores.Verdict
		var wg sync.WaitGroup
		wg.Go(func() { pubErr = pub.Publish(ctx(t), publication(n, 1, "tok", 1)) })
		wg.Go(func() { verdict, verErr = ver.Verify(ctx(t), checkpoint(n), "tok", 1) })
		wg.Wait()
		require.NoError(t, verErr)

		e := read(t, pub, n)
		switch verdict {
		case stores.Present:
			present++
			require.NoError(t, pubErr)
			assert.True(t, e.HoldsToken("tok"))
		case stores.Absent:
			absent++
			requireRejected(t, pubErr, stores.ErrFenced)
			require.NotNil(t, e.Tombstone, "checkpoint %d", n)
		default:
			t.Fatalf("checkpoint %d: verdict %v", n, verdict)
		}
	}
	t.Logf("present %d, absent %d", present, absent)
}
