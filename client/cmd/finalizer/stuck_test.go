package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkclient "go.temporal.io/sdk/client"
	"sigs.k8s.io/yaml"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/e2e/harness"
)

// A finalization stuck in Persisting (its bucket fails) shows its last
// error, the pending persist's last failure, in status and in list --stuck
// in every output; a retirement that outlasts the bound (here: no worker
// runs it) is listed beside it.
func TestStuckShowsLastErrorAndRetirements(t *testing.T) {
	t.Parallel()
	e := harness.Start(t, harness.Options{WrapStates: func(s activities.States) activities.States {
		return harness.BucketDown{States: s}
	}})
	env := envFor(t, e)
	require.Equal(t, exitOK, runTool(t, env, "claim", "--cluster", e.Cluster, "--job", e.Job, "--epoch", "1", "--owner", "jm-1").code)
	req := e.Checkpoint(1, 1)
	require.Equal(t, exitOK, runTool(t, env, finalizeArgs(req)...).code)

	idle := harness.Start(t, harness.Options{Deferred: true})
	retire := contract.RetireRequest{Cluster: idle.Cluster, Job: idle.Job, Epoch: 2, Owner: "jm-2"}
	_, err := idle.Temporal.ExecuteWorkflow(t.Context(), sdkclient.StartWorkflowOptions{ID: retire.WorkflowID(), TaskQueue: idle.TaskQueue},
		contract.RetireWorkflow, retire)
	require.NoError(t, err)

	byID := func(list []client.Stuck) map[string]client.Stuck {
		m := map[string]client.Stuck{}
		for _, s := range list {
			m[s.WorkflowID] = s
		}
		return m
	}
	var listed map[string]client.Stuck
	require.Eventually(t, func() bool {
		o := runTool(t, env, "list", "--stuck", "--older-than", "0s", "-o", "json")
		require.Equal(t, exitOK, o.code)
		var list []client.Stuck
		require.NoError(t, json.Unmarshal([]byte(o.stdout), &list))
		listed = byID(list)
		_, retired := listed[retire.WorkflowID()]
		return retired && listed[req.WorkflowID()].LastError != ""
	}, 40*time.Second, time.Second, "the finalization with its last error, and the retirement")
	fin, ret := listed[req.WorkflowID()], listed[retire.WorkflowID()]
	assert.Equal(t, client.KindFinalization, fin.Kind)
	assert.Equal(t, contract.Persisting, fin.Phase)
	assert.Contains(t, fin.LastError, harness.ErrBucketDown.Error())
	assert.Equal(t, client.KindRetirement, ret.Kind)
	assert.Equal(t, client.Retiring, ret.Phase)
	assert.Equal(t, [3]any{idle.Cluster, idle.Job, uint64(2)}, [3]any{ret.Cluster, ret.Job, ret.Epoch})

	o := runTool(t, env, "list", "--stuck", "--older-than", "0s", "-o", "yaml")
	require.Equal(t, exitOK, o.code)
	var list []client.Stuck
	require.NoError(t, yaml.Unmarshal([]byte(o.stdout), &list))
	assert.Contains(t, byID(list)[req.WorkflowID()].LastError, harness.ErrBucketDown.Error())

	for _, format := range []string{"text", "wide"} {
		o := runTool(t, env, "list", "--stuck", "--older-than", "0s", "-o", format)
		require.Equal(t, exitOK, o.code)
		lines := strings.Split(o.stdout, "\n")
		assert.Contains(t, lines[0], "LAST ERROR", format)
		assert.Contains(t, lineOf(lines, req.WorkflowID()), harness.ErrBucketDown.Error(), format)
		assert.Contains(t, lineOf(lines, retire.WorkflowID()), string(client.Retiring), format)
	}

	status := []string{"status", "--cluster", e.Cluster, "--job", e.Job, "--epoch", "1", "--checkpoint", "1"}
	o = runTool(t, env, status...)
	require.Equal(t, exitOK, o.code)
	assert.Contains(t, o.stdout, "last error:    "+fin.LastError[:strings.Index(fin.LastError, harness.ErrBucketDown.Error())])
	assert.Contains(t, o.stdout, "pending:       PersistHandle, attempt ")
	o = runTool(t, env, append(status, "-o", "json")...)
	require.Equal(t, exitOK, o.code)
	var st struct {
		Phase     contract.Phase           `json:"phase"`
		LastError string                   `json:"lastError"`
		Pending   []client.PendingActivity `json:"pendingActivities"`
	}
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &st))
	assert.Equal(t, contract.Persisting, st.Phase)
	assert.Contains(t, st.LastError, harness.ErrBucketDown.Error())
	require.Len(t, st.Pending, 1, "%s", o.stdout)
	assert.Equal(t, "PersistHandle", st.Pending[0].Type)
	assert.Contains(t, st.Pending[0].LastFailure, harness.ErrBucketDown.Error())
}

// lineOf is the line that names id.
func lineOf(lines []string, id string) string {
	for _, l := range lines {
		if strings.Contains(l, id) {
			return l
		}
	}
	return fmt.Sprintf("(no line names %s)", id)
}

// With no worker to answer the status query (every worker down), status
// still answers what the server knows: the phase the execution listed, and
// says that the workflow did not answer.
func TestStatusWithoutWorkerFallsBackToTheServer(t *testing.T) {
	t.Parallel()
	e := harness.Start(t, harness.Options{Deferred: true})
	env := envFor(t, e)
	req := e.Checkpoint(1, 1)
	require.Equal(t, exitOK, runTool(t, env, finalizeArgs(req)...).code)

	status := []string{"status", "--cluster", e.Cluster, "--job", e.Job, "--epoch", "1", "--checkpoint", "1"}
	o := runTool(t, env, status...)
	require.Equal(t, exitOK, o.code)
	assert.Contains(t, o.stdout, req.WorkflowID())
	assert.Contains(t, o.stdout, "phase:         Persisting since ")
	assert.Contains(t, o.stdout, "execution:     Running")
	assert.Contains(t, o.stderr, "the workflow did not answer its status query")

	o = runTool(t, env, append(status, "-o", "json")...)
	require.Equal(t, exitOK, o.code)
	var st struct {
		WorkflowID string         `json:"workflowId"`
		Phase      contract.Phase `json:"phase"`
		Execution  string         `json:"executionStatus"`
		Answered   bool           `json:"answered"`
	}
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &st))
	assert.Equal(t, req.WorkflowID(), st.WorkflowID)
	assert.Equal(t, contract.Persisting, st.Phase)
	assert.Equal(t, "Running", st.Execution)
	assert.False(t, st.Answered)
}
