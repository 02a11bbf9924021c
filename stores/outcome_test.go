package stores_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

func TestOutcomeOf(t *testing.T) {
	exists := errors.New("node already exists")
	cases := []struct {
		name string
		err  error
		want stores.Outcome
	}{
		{"nil is Published", nil, stores.Published},
		{"stale epoch", fmt.Errorf("publish 1: %w", stores.ErrStaleEpoch), stores.Rejected},
		{"invalid", &stores.InvalidError{Field: "job", Rule: "r"}, stores.Rejected},
		{"forbidden", fmt.Errorf("%w: no auth", stores.ErrForbidden), stores.Rejected},
		{"unclassified client error", exists, stores.Unknown},
		{"deadline", context.DeadlineExceeded, stores.Unknown},
		// A hidden resend can turn our applied write into a conflict: once
		// marked Unknown, no wrapped sentinel makes it Rejected.
		{"unknown wrapping a conflict", stores.Unknownf(fmt.Errorf("%w", stores.ErrConflict), "publish"), stores.Unknown},
		{"wrapped unknown", fmt.Errorf("activity: %w", stores.Unknownf(exists, "publish")), stores.Unknown},
		// What the store holds is never a definite answer, whatever else
		// the error carries.
		{"corrupt state", fmt.Errorf("job node /r/c/jobs/j: %w", stores.ErrCorruptState), stores.Unknown},
		{"corrupt state wrapping a rejection", fmt.Errorf("%w: %w", stores.ErrCorruptState, stores.ErrInvalid), stores.Unknown},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, stores.OutcomeOf(c.err), c.name)
	}
	assert.ErrorIs(t, stores.Unknownf(exists, "publish"), exists, "the cause stays inspectable")
}
