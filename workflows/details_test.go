package workflows_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkpb "go.temporal.io/api/sdk/v1"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// currentDetails is what the Web UI shows on the execution's page.
func (f *fixture) currentDetails() string {
	f.t.Helper()
	v, err := f.env.QueryWorkflow("__temporal_workflow_metadata")
	require.NoError(f.t, err)
	var md sdkpb.WorkflowMetadata
	require.NoError(f.t, v.Get(&md))
	return md.GetCurrentDetails()
}

// The current details follow the status query: a finalization parked in
// Verifying says so, with its counts, last error and what an operator can
// do; once it ends, its outcome.
func TestCurrentDetailsFollowStatus(t *testing.T) {
	f := newFixture(t, 0)
	f.refs.SetUnreachable(true)
	f.env.RegisterDelayedCallback(func() {
		st, details := f.status(), f.currentDetails()
		assert.Contains(t, details, fmt.Sprintf("**Verifying** since %s", st.PhaseSince.UTC().Format(time.RFC3339)))
		assert.Contains(t, details, fmt.Sprintf("publish attempts: %d, verifications: %d, fences: %d", st.Attempts, st.Verifications, st.Fences))
		assert.Contains(t, details, "last error: "+st.LastError)
		assert.Contains(t, details, "signal `retry-now`")
		f.refs.SetUnreachable(false)
	}, time.Hour)
	res := f.finalize(f.checkpoint(1, false))
	require.Equal(t, contract.Published, res.Phase)
	assert.Contains(t, f.currentDetails(), "**Published** since")
}
