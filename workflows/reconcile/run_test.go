package reconcile_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/contracttest"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// A run whose history grows long hands its report and the jobs left to a
// continuation, which finishes them on the same reference time.
func TestReconcileContinuesAsNewWithItsReport(t *testing.T) {
	f := newFixture(t)
	two := f.published(2)
	f.remove(activities.HandleOf(two).Key())

	env := f.env(later())
	env.SetCurrentHistoryLength(1 << 20)
	env.ExecuteWorkflow(contract.ReconcileWorkflow, dryRun())
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, env.GetWorkflowError(), &can)
	var next contract.ReconcileRequest
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	require.Len(t, can.Input.GetPayloads(), 1)
	contracttest.Validate(t, "reconcile-request.schema.json", can.Input.GetPayloads()[0].GetData()) // the carry too
	require.NotNil(t, next.Carry)
	assert.Equal(t, []stores.JobID{job}, next.Carry.Jobs)
	assert.Equal(t, contract.ReconcileReconciling, next.Carry.Report.Phase)

	env = f.env(later().Add(time.Hour))
	env.SetContinuedExecutionRunID("the-run-before")
	rep := f.run(env, next)
	assert.Equal(t, next.Carry.Report.Now, rep.Now, "the cutoffs stay those of the first run")
	assert.Equal(t, 1, rep.Counts.Dangling)
	assert.Equal(t, contract.ReconcileDone, rep.Phase)
}

func TestReconcileRefusesAnInvalidRequest(t *testing.T) {
	f := newFixture(t)
	for _, req := range []contract.ReconcileRequest{
		{Cluster: "Bad_Cluster", TombstoneTTL: contract.Duration(contract.DefaultTombstoneTTL)},
		{Cluster: "c1", TombstoneTTL: contract.Duration(time.Millisecond)},
		{Cluster: "c1", Grace: contract.Duration(-time.Second), TombstoneTTL: contract.Duration(contract.DefaultTombstoneTTL)},
	} {
		env := f.env(later())
		env.ExecuteWorkflow(contract.ReconcileWorkflow, req)
		var app *temporal.ApplicationError
		require.ErrorAs(t, env.GetWorkflowError(), &app, "%+v", req)
		assert.Equal(t, "Rejected.Invalid", app.Type())
	}
}

// What a caller in another language sends reaches the workflow: string
// durations run; an invalid one fails the run as Rejected.Invalid, naming
// the field.
func TestReconcileWorkflowTakesStringDurations(t *testing.T) {
	f := newFixture(t)
	env := f.env(later())
	env.ExecuteWorkflow(contract.ReconcileWorkflow, json.RawMessage(`{"cluster":"c1","grace":"10m","tombstoneTtl":"24h"}`))
	require.NoError(t, env.GetWorkflowError())
	var rep contract.ReconcileReport
	require.NoError(t, env.GetWorkflowResult(&rep))
	assert.Equal(t, 10*time.Minute, rep.Now.Sub(rep.GraceCutoff))
	assert.Equal(t, 24*time.Hour, rep.Now.Sub(rep.TombstoneCutoff))

	env = f.env(later())
	env.ExecuteWorkflow(contract.ReconcileWorkflow, json.RawMessage(`{"cluster":"c1","grace":"-10m","tombstoneTtl":"24h"}`))
	var app *temporal.ApplicationError
	require.ErrorAs(t, env.GetWorkflowError(), &app)
	assert.Equal(t, "Rejected.Invalid", app.Type())
	assert.Contains(t, app.Error(), `invalid grace: "-10m": must not be negative`)
}
