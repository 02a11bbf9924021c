package contract_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Each store refusal names its type and each type maps back to the same
// sentinel: the activities and the client read one table.
func TestRejectionTableRoundTrips(t *testing.T) {
	for typ, sentinel := range map[string]error{
		contract.TypeStaleEpoch:     stores.ErrStaleEpoch,
		contract.TypeConflict:       stores.ErrConflict,
		contract.TypeFenced:         stores.ErrFenced,
		contract.TypeBelowWatermark: stores.ErrBelowWatermark,
		contract.TypeRetired:        stores.ErrRetired,
		contract.TypeTooLarge:       stores.ErrTooLarge,
		contract.TypeInvalid:        stores.ErrInvalid,
		contract.TypeForbidden:      stores.ErrForbidden,
		contract.TypeHandleConflict: stores.ErrHandleConflict,
	} {
		assert.True(t, strings.HasPrefix(typ, contract.RejectedPrefix), typ)
		assert.Equal(t, typ, contract.RejectionType(fmt.Errorf("op: %w", sentinel)))
		assert.Same(t, sentinel, contract.RejectionSentinel(typ))
	}
	assert.Equal(t, contract.TypeOther, contract.RejectionType(errors.New("no sentinel")))
	assert.Nil(t, contract.RejectionSentinel(contract.TypeDataMissing), "a type without a store sentinel")
	assert.Equal(t, contract.TypeInvalid, contract.RejectionType(&stores.InvalidError{Field: "job", Rule: "r"}))
}

// Rejection finds a definite rejection through wrapping and nothing else.
func TestRejectionIsOnlyTheRejectedTypes(t *testing.T) {
	rejected := temporal.NewNonRetryableApplicationError("stale", contract.TypeStaleEpoch, nil)
	app := contract.Rejection(fmt.Errorf("workflow: %w", rejected))
	if assert.NotNil(t, app) {
		assert.Equal(t, contract.TypeStaleEpoch, app.Type())
	}
	assert.Nil(t, contract.Rejection(temporal.NewApplicationError("lost", contract.TypeUnknown)))
	assert.Nil(t, contract.Rejection(temporal.NewApplicationError("retry", contract.TypeRejectedAfterRetry)))
	assert.Nil(t, contract.Rejection(errors.New("timeout")))
}

// A store's corrupt state is a retryable Unknown of its own type, never a
// rejection, whatever else the error wraps.
func TestUnknownType(t *testing.T) {
	corrupt := fmt.Errorf("configmap ns/c.j.checkpoints: %w: %w", stores.ErrCorruptState, stores.ErrInvalid)
	assert.Equal(t, contract.TypeCorruptState, contract.UnknownType(corrupt))
	assert.False(t, strings.HasPrefix(contract.TypeCorruptState, contract.RejectedPrefix))
	assert.Equal(t, contract.TypeUnknown, contract.UnknownType(errors.New("connection reset")))
	assert.Nil(t, contract.Rejection(temporal.NewApplicationError("corrupt", contract.TypeCorruptState)))
}
