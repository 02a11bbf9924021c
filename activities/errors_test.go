package activities

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// The workflow branches on these types: a definite rejection is
// non-retryable and names its reason; everything else is a retryable
// Unknown, even when it wraps a sentinel (a hidden resend's "conflict").
func TestTranslate(t *testing.T) {
	assert.NoError(t, Translate(nil))

	cases := []struct {
		err       error
		typ       string
		retryable bool
	}{
		{fmt.Errorf("publish: %w", stores.ErrStaleEpoch), "Rejected.StaleEpoch", false},
		{fmt.Errorf("publish: %w", stores.ErrFenced), "Rejected.Fenced", false},
		{&stores.InvalidError{Field: "job", Rule: "r"}, "Rejected.Invalid", false},
		{fmt.Errorf("read: %w", stores.ErrForbidden), "Rejected.Forbidden", false},
		{stores.Unknownf(stores.ErrConflict, "publish"), contract.TypeUnknown, true},
		{errors.New("zk: connection closed"), contract.TypeUnknown, true},
		{fmt.Errorf("job node /r/c/jobs/j: %w", stores.ErrCorruptState), contract.TypeCorruptState, true},
		{fmt.Errorf("%w: %w", stores.ErrCorruptState, stores.ErrInvalid), contract.TypeCorruptState, true},
	}
	for _, c := range cases {
		var app *temporal.ApplicationError
		err := Translate(c.err)
		if assert.ErrorAs(t, err, &app, "%v", c.err) {
			assert.Equal(t, c.typ, app.Type(), "%v", c.err)
			assert.Equal(t, !c.retryable, app.NonRetryable(), "%v", c.err)
		}
	}
}
