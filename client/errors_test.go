package client_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

func TestRejectedErrorMatchesItsSentinel(t *testing.T) {
	t.Parallel()
	cases := map[string]error{
		"Rejected.StaleEpoch": client.ErrStaleEpoch,
		"Rejected.Retired":    client.ErrRetired,
		"Rejected.Forbidden":  client.ErrForbidden,
		"Rejected.Invalid":    stores.ErrInvalid,
	}
	for typ, sentinel := range cases {
		err := fmt.Errorf("wrapped: %w", &client.RejectedError{WorkflowID: "claim/c/j/1", Type: typ, Message: "no"})
		assert.ErrorIs(t, err, sentinel, typ)
		assert.ErrorIs(t, err, client.ErrRejected, typ)
		for other, s := range cases {
			if other != typ {
				assert.False(t, errors.Is(err, s), "%s must not match %s", typ, other)
			}
		}
	}
	other := &client.RejectedError{Type: "Rejected.Other"}
	assert.ErrorIs(t, other, client.ErrRejected)
	assert.NotErrorIs(t, other, client.ErrStaleEpoch)
	assert.ErrorIs(t, client.ErrStaleEpoch, stores.ErrStaleEpoch, "one identity across layers")
}

func TestContentMismatchErrorNamesBothHashes(t *testing.T) {
	t.Parallel()
	err := &client.ContentMismatchError{WorkflowID: "finalize/c/j/1/2", RunID: "r", Existing: "aaa", Requested: "bbb"}
	assert.ErrorIs(t, err, client.ErrContentMismatch)
	assert.Contains(t, err.Error(), "aaa")
	assert.Contains(t, err.Error(), "bbb")
	assert.Contains(t, err.Error(), "finalize/c/j/1/2")
}
