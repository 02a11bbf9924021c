package bench

import (
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParallelRunsEachOnceAndReportsTheFirstFailure(t *testing.T) {
	var calls atomic.Int64
	require.NoError(t, parallel(100, func(int) error { calls.Add(1); return nil }))
	assert.EqualValues(t, 100, calls.Load())

	boom := errors.New("boom")
	err := parallel(40, func(i int) error {
		if i%10 == 0 {
			return boom
		}
		return nil
	})
	require.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), "4 of 40 failed")
}
