package reconcile_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
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
