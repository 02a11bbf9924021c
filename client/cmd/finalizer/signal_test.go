package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"sigs.k8s.io/yaml"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/e2e/harness"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// parked starts an environment whose store never answers and parks a
// finalization of each checkpoint in Verifying, as list --stuck shows it.
func parked(t *testing.T, checkpoints ...uint64) (*harness.Env, map[string]string, *client.Client) {
	t.Helper()
	e := harness.Start(t, harness.Options{WrapReferences: func(r activities.References) activities.References {
		return harness.Unanswering{References: r}
	}})
	env := envFor(t, e)
	require.Equal(t, exitOK, runTool(t, env, "claim", "--cluster", e.Cluster, "--job", e.Job, "--epoch", "1", "--owner", "jm-1").code)
	c := client.New(e.Temporal, client.Options{TaskQueue: e.TaskQueue})
	for _, n := range checkpoints {
		require.Equal(t, exitOK, runTool(t, env, finalizeArgs(e.Checkpoint(1, n))...).code)
		require.Eventually(t, func() bool {
			st, err := c.Status(t.Context(), e.Cluster, e.Job, 1, n)
			return err == nil && st.Phase == contract.Verifying
		}, 30*time.Second, 100*time.Millisecond, "checkpoint %d parks in Verifying", n)
	}
	return e, env, c
}

// one is the command line naming checkpoint n of e's job at epoch 1.
func one(e *harness.Env, n uint64) []string {
	return []string{"--cluster", e.Cluster, "--job", e.Job, "--epoch", "1", "--checkpoint", fmt.Sprint(n)}
}

// signalled counts the signals of name in workflowID's history: the proof
// that one was, or was not, sent.
func signalled(t *testing.T, e *harness.Env, workflowID, name string) int {
	t.Helper()
	n := 0
	it := e.Temporal.GetWorkflowHistory(t.Context(), workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		if a := ev.GetWorkflowExecutionSignaledEventAttributes(); a != nil && a.GetSignalName() == name {
			n++
		}
	}
	return n
}

// One finalization, named as status names it: retry-now starts a verify
// at once, abandon ends it Abandoned with its state kept; once it has
// ended, both are refused (exit 4), in the --output format.
func TestRetryNowAndAbandonOne(t *testing.T) {
	t.Parallel()
	e, env, c := parked(t, 5)
	wid := e.Checkpoint(1, 5).WorkflowID()

	o := runTool(t, env, append([]string{"retry-now"}, one(e, 5)...)...)
	require.Equal(t, exitOK, o.code)
	assert.Contains(t, o.stdout, "retry-now sent to "+wid)
	assert.Equal(t, 1, signalled(t, e, wid, contract.RetryNowSignal))
	require.Eventually(t, func() bool {
		st, err := c.Status(t.Context(), e.Cluster, e.Job, 1, 5)
		return err == nil && st.Verifications >= 2
	}, 30*time.Second, 100*time.Millisecond, "a new verify started at once")

	o = runTool(t, env, append([]string{"abandon"}, one(e, 5)...)...)
	assert.Equal(t, exitUsage, o.code, "abandon needs a reason")
	assert.Contains(t, o.stderr, "--reason is required")

	o = runTool(t, env, append([]string{"abandon", "-o", "yaml", "--reason", "store decommissioned"}, one(e, 5)...)...)
	require.Equal(t, exitOK, o.code)
	var rep signalReport
	require.NoError(t, yaml.Unmarshal([]byte(o.stdout), &rep), "stdout holds only the YAML report")
	require.Len(t, rep.Results, 1)
	assert.Equal(t, wid, rep.Results[0].WorkflowID)
	assert.Equal(t, outcomeSignalled, rep.Results[0].Outcome)
	assert.Equal(t, "store decommissioned", rep.Reason)
	assert.Contains(t, rep.Effect, "state kept")

	f, err := c.Attach(t.Context(), e.Cluster, e.Job, 1, 5)
	require.NoError(t, err)
	res, err := f.Wait(t.Context())
	require.NoError(t, err)
	assert.Equal(t, contract.Abandoned, res.Phase)
	assert.Equal(t, "store decommissioned", res.Reason)
	assert.True(t, e.Exists(e.Cluster+"/j1/chk-5/data-0"), "abandon keeps the state")

	// Ended: refused, nothing sent; the error as a JSON object on stderr.
	o = runTool(t, env, append([]string{"retry-now", "-o", "json"}, one(e, 5)...)...)
	assert.Equal(t, exitRefused, o.code)
	assert.Empty(t, o.stdout, "an error is never printed as a result")
	var eo errorOutput
	require.NoError(t, json.Unmarshal([]byte(o.stderr), &eo), "stderr holds one JSON object")
	assert.Equal(t, errorOutput{Error: eo.Error, Kind: "refused", ExitCode: exitRefused}, eo)
	assert.Contains(t, eo.Error, client.ErrNotSignalable.Error())
	assert.Equal(t, 1, signalled(t, e, wid, contract.RetryNowSignal))

	o = runTool(t, env, append([]string{"abandon", "--reason", "again"}, one(e, 5)...)...)
	assert.Equal(t, exitRefused, o.code)
	assert.Contains(t, o.stderr, "finalizer: "+wid+" has ended (Abandoned)")

	// No such finalization: exit 5, in YAML.
	o = runTool(t, env, append([]string{"retry-now", "-o", "yaml"}, one(e, 6)...)...)
	assert.Equal(t, exitNotFound, o.code)
	require.NoError(t, yaml.Unmarshal([]byte(o.stderr), &eo))
	assert.Equal(t, "not-found", eo.Kind)
	assert.Equal(t, exitNotFound, eo.ExitCode)
}

// A batch is list --stuck's: --dry-run lists it and sends nothing, without
// --yes it is refused, with --yes every listed finalization is signalled
// and reported by workflow ID.
func TestSignalStuckBatch(t *testing.T) {
	t.Parallel()
	e, env, c := parked(t, 1, 2)
	ids := []string{e.Checkpoint(1, 1).WorkflowID(), e.Checkpoint(1, 2).WorkflowID()}
	// --cluster narrows the batch to this test's: the server is shared.
	batch := []string{"--stuck", "--older-than", "1s", "--cluster", e.Cluster}

	o := runTool(t, env, append([]string{"retry-now"}, batch...)...)
	assert.Equal(t, exitUsage, o.code)
	assert.Contains(t, o.stderr, "add --yes to confirm, or --dry-run")
	o = runTool(t, env, append([]string{"abandon", "--reason", "r", "--epoch", "1"}, batch...)...)
	assert.Equal(t, exitUsage, o.code)

	var rep signalReport
	require.Eventually(t, func() bool {
		o = runTool(t, env, append([]string{"retry-now", "--dry-run", "--json"}, batch...)...)
		require.Equal(t, exitOK, o.code)
		require.NoError(t, json.Unmarshal([]byte(o.stdout), &rep))
		return len(rep.Results) == 2
	}, 30*time.Second, 300*time.Millisecond, "visibility lists both")
	assert.True(t, rep.DryRun)
	for _, r := range rep.Results {
		assert.Contains(t, ids, r.WorkflowID)
		assert.Equal(t, outcomeWouldSignal, r.Outcome)
	}
	o = runTool(t, env, "list", "--stuck", "--older-than", "1s", "-o", "yaml")
	require.Equal(t, exitOK, o.code)
	var list []client.Stuck
	require.NoError(t, yaml.Unmarshal([]byte(o.stdout), &list), "list in YAML, the keys of its JSON")
	for _, id := range ids {
		assert.NotNil(t, find(list, id))
	}
	o = runTool(t, env, append([]string{"abandon", "--reason", "r", "--dry-run", "-o", "wide"}, batch...)...)
	require.Equal(t, exitOK, o.code)
	assert.Contains(t, o.stdout, "CHECKPOINT")
	assert.Contains(t, o.stdout, "dry run, nothing sent: abandon (reason \"r\") would go to 2, 0 skipped")
	for _, id := range ids {
		assert.Contains(t, o.stdout, id)
		assert.Zero(t, signalled(t, e, id, contract.RetryNowSignal), "a dry run sends nothing")
		assert.Zero(t, signalled(t, e, id, contract.AbandonSignal), "a dry run sends nothing")
	}

	o = runTool(t, env, append([]string{"retry-now", "--yes"}, batch...)...)
	require.Equal(t, exitOK, o.code)
	assert.Contains(t, o.stdout, "retry-now: 2 signalled, 0 skipped, 0 failed")
	for _, id := range ids {
		assert.Equal(t, 1, signalled(t, e, id, contract.RetryNowSignal))
	}

	o = runTool(t, env, append([]string{"abandon", "--reason", "zk lost", "--yes", "-o", "yaml"}, batch...)...)
	require.Equal(t, exitOK, o.code)
	require.NoError(t, yaml.Unmarshal([]byte(o.stdout), &rep))
	require.Len(t, rep.Results, 2)
	for _, r := range rep.Results {
		assert.Equal(t, outcomeSignalled, r.Outcome)
	}
	for n := uint64(1); n <= 2; n++ {
		f, err := c.Attach(t.Context(), e.Cluster, e.Job, 1, n)
		require.NoError(t, err)
		res, err := f.Wait(t.Context())
		require.NoError(t, err)
		assert.Equal(t, contract.Abandoned, res.Phase)
		assert.Equal(t, "zk lost", res.Reason)
	}
}

func find(list []client.Stuck, workflowID string) *client.Stuck {
	for i := range list {
		if list[i].WorkflowID == workflowID {
			return &list[i]
		}
	}
	return nil
}

// Stuck means any phase: a finalization stuck in Persisting (its bucket
// is away) reads the signals as a Verifying one does. A batch signals it,
// and abandoned by name it ends Abandoned, nothing published, its state
// marked kept under its handle's key, the result saying where.
func TestSignalPersisting(t *testing.T) {
	t.Parallel()
	e := harness.Start(t, harness.Options{WrapStates: func(s activities.States) activities.States {
		return harness.BucketDown{States: s} // reads and writes of handles fail; the keep mark is written
	}})
	env := envFor(t, e)
	require.Equal(t, exitOK, runTool(t, env, "claim", "--cluster", e.Cluster, "--job", e.Job, "--epoch", "1", "--owner", "jm-1").code)
	require.Equal(t, exitOK, runTool(t, env, finalizeArgs(e.Checkpoint(1, 3))...).code)
	wid := e.Checkpoint(1, 3).WorkflowID()

	var (
		o   outcome
		rep signalReport
	)
	require.Eventually(t, func() bool {
		o = runTool(t, env, "retry-now", "--stuck", "--older-than", "1s", "--cluster", e.Cluster, "--yes", "-o", "json")
		require.Equal(t, exitOK, o.code, o.stderr)
		require.NoError(t, json.Unmarshal([]byte(o.stdout), &rep))
		return len(rep.Results) == 1
	}, 30*time.Second, 300*time.Millisecond, "visibility lists it")
	assert.Equal(t, contract.Persisting, rep.Results[0].Phase)
	assert.Equal(t, outcomeSignalled, rep.Results[0].Outcome, rep.Results[0].Detail)
	// The server writes a signal to the history once the workflow task in
	// flight (the fast path's persist, 5 s) has ended.
	require.Eventually(t, func() bool { return signalled(t, e, wid, contract.RetryNowSignal) == 1 },
		30*time.Second, 200*time.Millisecond, "retry-now sent")

	o = runTool(t, env, append([]string{"abandon", "--reason", "bucket gone"}, one(e, 3)...)...)
	require.Equal(t, exitOK, o.code, o.stderr)
	assert.Contains(t, o.stdout, "abandon sent to "+wid)
	c := client.New(e.Temporal, client.Options{TaskQueue: e.TaskQueue})
	f, err := c.Attach(t.Context(), e.Cluster, e.Job, 1, 3)
	require.NoError(t, err)
	res, err := f.Wait(t.Context())
	require.NoError(t, err)
	assert.Equal(t, contract.Abandoned, res.Phase)
	assert.Contains(t, res.Reason, "bucket gone")
	assert.Contains(t, res.Reason, "Persisting")
	require.NotEmpty(t, res.HandleKey)
	assert.True(t, e.Exists(stores.KeptPrefix+strings.TrimPrefix(res.HandleKey, stores.HandlesPrefix)), "the keep mark stands")
	assert.True(t, e.Exists(e.Cluster+"/j1/chk-3/data-0"), "abandon keeps the state")
}

// A retirement is stuck too: here one no worker has answered yet, as a
// store that never answers leaves it Retiring. The batch lists it, and
// abandon by workflow ID reaches it: it ends, once a worker runs it,
// failed Unknown.Abandoned (the store may have retired the job), nothing
// discarded.
func TestSignalStuckRetirement(t *testing.T) {
	t.Parallel()
	e := harness.Start(t, harness.Options{Deferred: true})
	env := envFor(t, e)
	req := contract.RetireRequest{Cluster: e.Cluster, Job: e.Job, Epoch: 1, Owner: "jm-1", DiscardCheckpoints: true}
	run, err := e.Temporal.ExecuteWorkflow(t.Context(), sdkclient.StartWorkflowOptions{ID: req.WorkflowID(), TaskQueue: e.TaskQueue}, contract.RetireWorkflow, req)
	require.NoError(t, err)

	var rep signalReport
	require.Eventually(t, func() bool {
		o := runTool(t, env, "abandon", "--reason", "r", "--stuck", "--older-than", "1s", "--cluster", e.Cluster, "--dry-run", "-o", "json")
		require.Equal(t, exitOK, o.code, o.stderr)
		require.NoError(t, json.Unmarshal([]byte(o.stdout), &rep))
		return len(rep.Results) == 1
	}, 30*time.Second, 300*time.Millisecond, "visibility lists the retirement")
	assert.Equal(t, req.WorkflowID(), rep.Results[0].WorkflowID)
	assert.Equal(t, client.KindRetirement, rep.Results[0].Kind)
	assert.Equal(t, client.Retiring, rep.Results[0].Phase)
	assert.Equal(t, outcomeWouldSignal, rep.Results[0].Outcome)

	o := runTool(t, env, "abandon", "--workflow-id", req.WorkflowID(), "--reason", "store decommissioned", "--epoch", "1")
	assert.Equal(t, exitUsage, o.code, "--workflow-id names the execution alone")
	o = runTool(t, env, "abandon", "--workflow-id", req.WorkflowID(), "--reason", "store decommissioned", "-o", "json")
	require.Equal(t, exitOK, o.code, o.stderr)
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &rep))
	assert.Equal(t, client.KindRetirement, rep.Results[0].Kind)

	e.StartWorker()
	err = run.Get(t.Context(), nil)
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app, "the retirement ends")
	assert.Equal(t, contract.TypeAbandoned, app.Type())
	assert.Contains(t, app.Error(), "store decommissioned")

	o = runTool(t, env, "abandon", "--workflow-id", req.WorkflowID(), "--reason", "again")
	assert.Equal(t, exitRefused, o.code, "ended: refused")
}
