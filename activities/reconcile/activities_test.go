package reconcile_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Activities registered without what the reconciler needs fail the run's
// first activity for good, rather than panicking into retries or falling
// back to something else.
func TestUnwiredActivitiesFailAtOnce(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivity(&reconcileacts.Activities{})
	for name, arg := range map[string]any{
		"ListClusterJobs": reconcileacts.ListJobsInput{Cluster: "c1"},
		"InventoryJob":    reconcileacts.InventoryInput{},
	} {
		_, err := env.ExecuteActivity(name, arg)
		var app *temporal.ApplicationError
		require.True(t, errors.As(err, &app), "%s: %v", name, err)
		assert.Equal(t, "NotWired", app.Type(), name)
		assert.True(t, app.NonRetryable(), name)
	}
}

// Floors are refused only below their bounds: a grace of zero and a TTL of
// exactly the contract's minimum protect what they must; every field out
// of bounds is named, all at once.
func TestFloorsValidate(t *testing.T) {
	minTTL := contract.MinTombstoneTTL
	cases := []struct {
		name   string
		floors reconcileacts.Floors
		bad    []string
	}{
		{"the defaults", reconcileacts.DefaultFloors(), nil},
		{"no grace, the minimum TTL", reconcileacts.Floors{Grace: 0, TombstoneTTL: minTTL}, nil},
		{"a negative grace", reconcileacts.Floors{Grace: -time.Nanosecond, TombstoneTTL: minTTL}, []string{reconcileacts.FieldGraceFloor}},
		{"a TTL below the minimum", reconcileacts.Floors{TombstoneTTL: minTTL - time.Nanosecond}, []string{reconcileacts.FieldTombstoneTTLFloor}},
		{"both", reconcileacts.Floors{Grace: -time.Second}, []string{reconcileacts.FieldGraceFloor, reconcileacts.FieldTombstoneTTLFloor}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.floors.Validate()
			if c.bad == nil {
				assert.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, stores.ErrInvalid)
			var fields []string
			for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
				var inv *stores.InvalidError
				require.ErrorAs(t, e, &inv)
				fields = append(fields, inv.Field)
			}
			assert.Equal(t, c.bad, fields)
		})
	}
}
