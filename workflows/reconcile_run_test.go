package workflows_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/internal/contracttest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/workflows"
)

// A run whose history grows long hands its report and the jobs left to a
// continuation, which finishes them on the same reference time.
func TestReconcileContinuesAsNewWithItsReport(t *testing.T) {
	f := newReconcileFixture(t)
	two := f.published(2)
	f.remove(two.Handle().Key())

	env := f.env(later())
	env.SetCurrentHistoryLength(1 << 20)
	env.ExecuteWorkflow(workflows.ReconcileWorkflow, dryRun())
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, env.GetWorkflowError(), &can)
	var next workflows.ReconcileRequest
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	require.Len(t, can.Input.GetPayloads(), 1)
	contracttest.Validate(t, "reconcile-request.schema.json", can.Input.GetPayloads()[0].GetData()) // the carry too
	require.NotNil(t, next.Carry)
	assert.Equal(t, []stores.JobID{job}, next.Carry.Jobs)
	assert.Equal(t, workflows.ReconcileReconciling, next.Carry.Report.Phase)

	rep := f.reconcile(next, later().Add(time.Hour))
	assert.Equal(t, next.Carry.Report.Now, rep.Now, "the cutoffs stay those of the first run")
	assert.Equal(t, 1, rep.Counts.Dangling)
	assert.Equal(t, workflows.ReconcileDone, rep.Phase)
}

func TestReconcileRefusesAnInvalidRequest(t *testing.T) {
	f := newReconcileFixture(t)
	for _, req := range []workflows.ReconcileRequest{
		{Cluster: "Bad_Cluster", TombstoneTTL: workflows.Duration(workflows.DefaultTombstoneTTL)},
		{Cluster: "c1", TombstoneTTL: workflows.Duration(time.Millisecond)},
		{Cluster: "c1", Grace: workflows.Duration(-time.Second), TombstoneTTL: workflows.Duration(workflows.DefaultTombstoneTTL)},
	} {
		env := f.env(later())
		env.ExecuteWorkflow(workflows.ReconcileWorkflow, req)
		var app *temporal.ApplicationError
		require.ErrorAs(t, env.GetWorkflowError(), &app, "%+v", req)
		assert.Equal(t, "Rejected.Invalid", app.Type())
	}
}
