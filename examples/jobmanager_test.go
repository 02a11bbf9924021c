package examples_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/zkfault"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/contracttest"
)

// The job manager written with the temporal CLI, jq and sha256sum.
func TestJobManagerCLI(t *testing.T) {
	t.Parallel()
	script, err := filepath.Abs(filepath.Join("jobmanager-cli", "jobmanager.sh"))
	require.NoError(t, err)
	argv := []string{"bash", script}
	zk := newEnv(t, onZooKeeper)
	// jq holds numbers as doubles: the script takes them below 10^15.
	checkContentHashes(driver{name: "jobmanager.sh", argv: argv, env: zk}, big.NewInt(1e15-1))
	playJobManager(driver{name: "jobmanager.sh", argv: argv, env: zk})
	playLeaders(driver{name: "jobmanager.sh", argv: argv, env: newEnv(t, onEmbedded)})
}

// The job manager written in TypeScript with @temporalio/client.
func TestJobManagerTypeScript(t *testing.T) {
	t.Parallel()
	zk := newEnv(t, onZooKeeper) // first: it skips under -short before node runs
	argv := tsDriver(t)
	// JavaScript numbers are exact up to 2^53-1.
	checkContentHashes(driver{name: "jobmanager-ts", argv: argv, env: zk}, big.NewInt(1<<53-1))
	playJobManager(driver{name: "jobmanager-ts", argv: argv, env: zk})
	playLeaders(driver{name: "jobmanager-ts", argv: argv, env: newEnv(t, onEmbedded)})
}

// trigger is what a driver prints for `finalize`.
type trigger struct {
	WorkflowID  string `json:"workflowId"`
	RunID       string `json:"runId"`
	ContentHash string `json:"contentHash"`
	Started     bool   `json:"started"`
	// Refused: a different content holds the identity (exit code 4).
	Refused   bool   `json:"refused"`
	Existing  string `json:"existing"`
	Requested string `json:"requested"`
}

type written struct {
	MetadataKey     string `json:"metadataKey"`
	MetadataSHA256  string `json:"metadataSha256"`
	ExclusivePrefix string `json:"exclusivePrefix"`
}

// Exit codes both drivers document.
const (
	exitRejected        = 3
	exitContentMismatch = 4
	exitNotPublished    = 5
)

// checkContentHashes has the driver hash every request of the published
// vectors (testdata/contenthash-vectors.json): the same canonical form and
// hash for each whose epoch and checkpoint it can hold (up to max), a
// refusal (never a wrong hash) for the others.
func checkContentHashes(d driver, max *big.Int) {
	t := d.env.t
	t.Helper()
	vectors := contracttest.ContentHashVectors(t)
	require.NotEmpty(t, vectors)
	hashed := 0
	for _, v := range vectors {
		var numbers struct{ Epoch, Checkpoint json.Number }
		require.NoError(t, json.Unmarshal(v.Request, &numbers))
		r := d.runInput(v.Request, "hash")
		if !fits(t, numbers.Epoch, max) || !fits(t, numbers.Checkpoint, max) {
			assert.NotEqualf(t, 0, r.code, "%s: numbers beyond %s must be refused, got %s", v.Name, max, r.stdout)
			assert.NotContainsf(t, string(r.stdout), v.ContentHash, "%s", v.Name)
			continue
		}
		require.Equalf(t, 0, r.code, "%s: stdout %s stderr %s", v.Name, r.stdout, r.stderr)
		var got struct {
			Canonical   string `json:"canonical"`
			ContentHash string `json:"contentHash"`
		}
		require.NoError(t, decodeLine(r.stdout, &got))
		assert.Equalf(t, v.Canonical, got.Canonical, "%s", v.Name)
		assert.Equalf(t, v.ContentHash, got.ContentHash, "%s", v.Name)
		hashed++
	}
	assert.GreaterOrEqual(t, hashed, 8, "the vectors with small numbers: every field's rules")
}

func fits(t *testing.T, n json.Number, max *big.Int) bool {
	t.Helper()
	v, ok := new(big.Int).SetString(n.String(), 10)
	require.Truef(t, ok, "a vector's number %q", n)
	return v.Cmp(max) <= 0
}

// playJobManager plays one job manager step by step: the driver decides
// every call and builds every payload; the harness only checks what it
// printed and what the server recorded, and cuts the worker off from
// ZooKeeper to park a finalization. Each epoch's finalizations name the
// owner it was claimed with (JM_OWNER).
func playJobManager(d driver) {
	e, t := d.env, d.env.t
	jm := d.forJob("j1").as("leader-1")

	// A new job: the claim answers that there is nothing to recover from.
	var restore contract.RestorePoint
	jm.okAs(restorePoint, &restore, "claim", "1", "leader-1")
	assert.Equal(t, contract.RestoreNone, restore.State, "a new job")
	assert.Equal(t, uint64(1), restore.Epoch)
	assert.Nil(t, restore.Latest)

	// Checkpoint 1: its files into the bucket, then the trigger.
	req := e.checkWritten(jm, 1, 1)
	var first trigger
	jm.ok(&first, "finalize", "1", "1")
	assert.True(t, first.Started, "the first trigger starts it")
	assert.Equal(t, req.WorkflowID(), first.WorkflowID)
	assert.Equal(t, req.ContentHash(), first.ContentHash, "the driver's canonical form hashes as the finalizer's")
	e.checkStart(req)
	e.checkExecution(claimID(req, 1))

	// Triggered again (the job manager lost the answer): the same execution.
	var again trigger
	jm.ok(&again, "finalize", "1", "1")
	assert.False(t, again.Started)
	assert.Equal(t, first.RunID, again.RunID, "a repeated trigger reaches the same execution")

	// Different content for the same identity: refused by the driver itself,
	// from the memo's content hash, and nothing is started.
	other := req
	other.MaxPublishAttempts = 5
	r := jm.run("finalize", "1", "1", "5")
	require.Equalf(t, exitContentMismatch, r.code, "stdout %s stderr %s", r.stdout, r.stderr)
	var refused trigger
	require.NoError(t, decodeLine(r.stdout, &refused))
	assert.True(t, refused.Refused)
	assert.Equal(t, first.RunID, refused.RunID)
	assert.Equal(t, req.ContentHash(), refused.Existing)
	assert.Equal(t, other.ContentHash(), refused.Requested)

	// Published: only now may the job manager acknowledge it to sinks.
	var res contract.FinalizeResult
	jm.okAs(finalizeResult, &res, "wait", "1", "1")
	assert.Equal(t, contract.Published, res.Phase)
	var st contract.Status
	jm.okAs(status, &st, "status", "1", "1")
	assert.Equal(t, contract.Published, st.Phase)
	assert.Equal(t, res.HandleKey, st.HandleKey)
	assert.Equal(t, "zookeeper", st.StoreKind)
	e.checkExecution(req.WorkflowID())

	// A new leader claims epoch 2 and is told what to recover from.
	jm = jm.as("leader-2")
	jm.okAs(restorePoint, &restore, "claim", "2", "leader-2")
	assert.Equal(t, uint64(2), restore.Epoch)
	e.checkRestore(restore, req, res.HandleKey)

	// The deposed leader claims its old epoch again: refused.
	r = jm.run("claim", "1", "leader-1")
	require.Equalf(t, exitRejected, r.code, "stdout %s stderr %s", r.stdout, r.stderr)
	var rejected struct {
		Rejected string `json:"rejected"`
		Message  string `json:"message"`
	}
	require.NoError(t, decodeLine(r.stdout, &rejected))
	assert.Equal(t, "Rejected.StaleEpoch", rejected.Rejected)
	assert.Contains(t, rejected.Message, "stale epoch")
	e.checkExecution(claimID(req, 1)) // the refused claim's run
	e.checkExecution(claimID(req, 2))

	// Checkpoint 2 while the worker cannot reach ZooKeeper: the publish's
	// outcome is unknown and the finalization parks in Verifying.
	req2 := e.checkWritten(jm, 2, 2)
	e.proxy.Inject(zkfault.Partition)
	var parked trigger
	jm.ok(&parked, "finalize", "2", "2")
	assert.True(t, parked.Started)
	st = jm.awaitStatus(2, 2, "parks in Verifying", func(st contract.Status) bool { return st.Phase == contract.Verifying })
	assert.NotEmpty(t, st.LastError, "the unknown outcome is reported")

	// A trigger while it runs attaches to it (the conflict policy refuses a
	// second start; the memo's content hash matches).
	jm.ok(&again, "finalize", "2", "2")
	assert.False(t, again.Started)
	assert.Equal(t, parked.RunID, again.RunID, "a trigger while it runs reaches the same execution")

	// retry-now cuts the verify backoff short: a new verify starts at once
	// (it cannot answer either while the store is cut off).
	var signalled struct {
		Signalled bool `json:"signalled"`
	}
	jm.ok(&signalled, "retry-now", "2", "2")
	assert.True(t, signalled.Signalled)
	before := st.Verifications
	jm.awaitStatus(2, 2, "retry-now starts another verify", func(st contract.Status) bool {
		return st.Phase == contract.Verifying && st.Verifications > before
	})

	// The store answers again: Verify resolves it, and it ends Published.
	e.proxy.Heal()
	jm.ok(nil, "retry-now", "2", "2") // signalled, or it had ended already: both fine
	jm.okAs(finalizeResult, &res, "wait", "2", "2")
	assert.Equal(t, contract.Published, res.Phase)
	jm.okAs(status, &st, "status", "2", "2")
	assert.Equal(t, contract.Published, st.Phase)
	assert.Greater(t, st.Verifications, before, "the verifications retry-now started are counted")
	e.checkStart(req2)
	e.checkExecution(req2.WorkflowID()) // retry-now included: a signal with no payload

	// The read-only question gives the same answer a claim would.
	jm.okAs(restorePoint, &restore, "latest")
	assert.Equal(t, uint64(2), restore.Epoch)
	e.checkRestore(restore, req2, res.HandleKey)

	// Another owner naming the standing epoch: its finalization publishes
	// nothing, and the restore point stays.
	impostor := jm.as("impostor")
	req3 := e.checkWritten(impostor, 2, 3)
	impostor.ok(nil, "finalize", "2", "3")
	r = impostor.run("wait", "2", "3")
	require.Equalf(t, exitNotPublished, r.code, "stdout %s stderr %s", r.stdout, r.stderr)
	contracttest.Validate(t, finalizeResult, bytes.TrimSpace(r.stdout))
	var foreign contract.FinalizeResult
	require.NoError(t, decodeLine(r.stdout, &foreign))
	assert.Contains(t, []contract.Phase{contract.Discarded, contract.Failed}, foreign.Phase)
	assert.Contains(t, foreign.Reason, "Rejected.StaleEpoch")
	t.Logf("the impostor's finalization: %s (%s)", foreign.Phase, foreign.Reason)
	e.checkStart(req3)
	e.checkExecution(req3.WorkflowID())
	jm.okAs(restorePoint, &restore, "latest")
	e.checkRestore(restore, req2, res.HandleKey)
}

// playLeaders runs the drivers' own loop (`run`, what docs/contract.md tells a
// reader to paste, on the worker's default store) twice: a first leader on
// a new job (without JM_OWNER: the driver makes its identity up), then a
// new leader (JM_OWNER set) that claims the epoch above the first one's,
// recovers from its newest checkpoint and goes on from there. Each names
// the owner it claimed with in its finalizations.
func playLeaders(d driver) {
	e, t := d.env, d.env.t
	for _, leader := range []struct {
		epoch, from uint64
		owner       string
	}{{1, 0, ""}, {2, 3, "loop-leader-2"}} {
		jm := d.forJob("loop").as(leader.owner)
		r := jm.run("run")
		require.Equalf(t, 0, r.code, "run %d: stdout %s stderr %s", leader.epoch, r.stdout, r.stderr)
		out := lines(r.stdout)
		require.Lenf(t, out, 7, "run %d: claimed, recoverFrom, 3 checkpoints, again, latest:\n%s", leader.epoch, r.stdout)
		var claimed struct {
			Claimed uint64                `json:"claimed"`
			Restore contract.RestorePoint `json:"restore"`
		}
		require.NoError(t, json.Unmarshal(out[0], &claimed))
		validateMember(t, out[0], "restore", restorePoint)
		assert.Equal(t, leader.epoch, claimed.Claimed)
		var recoverFrom struct {
			RecoverFrom *string `json:"recoverFrom"`
		}
		require.NoError(t, json.Unmarshal(out[1], &recoverFrom))
		if leader.from == 0 {
			assert.Equal(t, contract.RestoreNone, claimed.Restore.State)
			assert.Nil(t, recoverFrom.RecoverFrom)
		} else {
			assert.Equal(t, contract.RestoreResolved, claimed.Restore.State)
			require.NotNil(t, claimed.Restore.Latest)
			assert.Equal(t, leader.from, claimed.Restore.Latest.Checkpoint)
			require.NotNil(t, recoverFrom.RecoverFrom)
			assert.Equal(t, claimed.Restore.Latest.RestorePath, *recoverFrom.RecoverFrom)
		}

		var firstRun string
		acknowledged := 0
		for _, line := range out[2:6] {
			var l struct {
				Checkpoint   uint64                   `json:"checkpoint"`
				Acknowledged bool                     `json:"acknowledged"`
				Result       *contract.FinalizeResult `json:"result"`
				Again        *trigger                 `json:"again"`
				First        string                   `json:"first"`
			}
			require.NoError(t, json.Unmarshal(line, &l))
			if l.Again != nil {
				assert.False(t, l.Again.Started, "the second trigger of the last checkpoint")
				assert.Equal(t, l.First, l.Again.RunID, "reaches the first one's execution")
				firstRun = l.First
				continue
			}
			acknowledged++
			validateMember(t, line, "result", finalizeResult)
			assert.Equal(t, leader.from+uint64(acknowledged), l.Checkpoint, "checkpoint IDs go on from the restore point")
			assert.True(t, l.Acknowledged)
			require.NotNil(t, l.Result)
			assert.Equal(t, contract.Published, l.Result.Phase)
		}
		assert.Equal(t, 3, acknowledged)
		assert.NotEmpty(t, firstRun)

		var latest struct {
			Latest contract.RestorePoint `json:"latest"`
		}
		require.NoError(t, json.Unmarshal(out[6], &latest))
		validateMember(t, out[6], "latest", restorePoint)
		assert.Equal(t, contract.RestoreResolved, latest.Latest.State)
		require.NotNil(t, latest.Latest.Latest)
		assert.Equal(t, leader.from+3, latest.Latest.Latest.Checkpoint)
		assert.Equal(t, leader.epoch, latest.Latest.Latest.Epoch)
		assert.Equal(t, e.restorePath(latest.Latest.Latest.MetadataKey), latest.Latest.Latest.RestorePath)

		// The claim's owner is JM_OWNER when set, and every finalization
		// names it.
		var claim contract.ClaimRequest
		e.startInput(contract.ClaimRequest{Cluster: e.cluster, Job: jm.job, Epoch: leader.epoch}.WorkflowID(), &claim)
		require.NotEmpty(t, claim.Owner)
		if leader.owner != "" {
			assert.Equal(t, leader.owner, claim.Owner)
		}
		for n := leader.from + 1; n <= leader.from+3; n++ {
			var req contract.FinalizeRequest
			e.startInput(contract.FinalizeRequest{Cluster: e.cluster, Job: jm.job, Epoch: leader.epoch, Checkpoint: n}.WorkflowID(), &req)
			assert.Equalf(t, claim.Owner, req.Owner, "checkpoint %d names the epoch's owner", n)
		}
	}
}

// Schemas of what the drivers print (schemas/).
const (
	restorePoint   = "restore-point.schema.json"
	finalizeResult = "finalize-result.schema.json"
	status         = "status.schema.json"
)

func claimID(req contract.FinalizeRequest, epoch uint64) string {
	return contract.ClaimRequest{Cluster: req.Cluster, Job: req.Job, Epoch: epoch}.WorkflowID()
}

// checkExecution validates every payload of the execution's history that
// a driver sent or received against the schemas, and for a finalization
// the memo's content hash against its start input.
func (e *env) checkExecution(workflowID string) {
	t := e.t
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	checked := contracttest.CheckExecution(ctx, t, e.temporal, workflowID)
	assert.NotEmptyf(t, checked.Payloads, "%s: payloads checked", workflowID)
	if strings.HasPrefix(workflowID, "finalize/") {
		assert.Positivef(t, checked.ContentHashes, "%s: the start memo's content hash is its input's", workflowID)
	}
}

// validateMember validates one member of a JSON line against schema.
func validateMember(t *testing.T, line []byte, member, schema string) {
	t.Helper()
	var members map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(line, &members))
	require.Containsf(t, members, member, "%s", line)
	contracttest.Validate(t, schema, members[member])
}

// checkWritten has the driver write checkpoint n's files and returns the
// request they make, built here from what landed in the bucket, naming the
// driver's owner.
func (e *env) checkWritten(jm driver, epoch, n uint64) contract.FinalizeRequest {
	t := e.t
	t.Helper()
	var w written
	jm.ok(&w, "write", jsonNumber(n))
	prefix := e.cluster + "/" + jm.job + "/chk-" + jsonNumber(n) + "/"
	assert.Equal(t, prefix, w.ExclusivePrefix)
	assert.Equal(t, prefix+"_metadata", w.MetadataKey)
	meta, err := os.ReadFile(filepath.Join(e.bucket, w.MetadataKey))
	require.NoError(t, err)
	sum := sha256.Sum256(meta)
	assert.Equal(t, hex.EncodeToString(sum[:]), w.MetadataSHA256)
	_, err = os.Stat(filepath.Join(e.bucket, prefix, "data-0"))
	require.NoError(t, err, "a data file next to the metadata")
	return contract.FinalizeRequest{
		Cluster: e.cluster, Job: jm.job, Epoch: epoch, Owner: jm.owner, Checkpoint: n,
		MetadataKey: w.MetadataKey, MetadataSHA256: w.MetadataSHA256, ExclusivePrefix: w.ExclusivePrefix,
	}
}

// checkStart reads the finalization's start event: the input, the memo and
// the search attributes as the driver sent them, before the workflow
// upserted anything.
func (e *env) checkStart(req contract.FinalizeRequest) {
	t := e.t
	t.Helper()
	attrs := e.startEvent(req.WorkflowID())
	assert.Equal(t, contract.FinalizeWorkflow, attrs.GetWorkflowType().GetName())
	assert.Equal(t, e.taskQueue, attrs.GetTaskQueue().GetName())

	dc := converter.GetDefaultDataConverter()
	var input contract.FinalizeRequest
	require.NoError(t, dc.FromPayloads(attrs.GetInput(), &input))
	assert.Equal(t, req.ContentHash(), input.ContentHash(), "the input is the request")
	assert.Equal(t, req.Owner, input.Owner, "the input names the epoch's owner")

	memo := attrs.GetMemo().GetFields()
	var summary, hash string
	var path int
	require.Contains(t, memo, contract.MemoSummary)
	require.Contains(t, memo, contract.MemoContentHash)
	require.Contains(t, memo, contract.MemoPath)
	require.NoError(t, dc.FromPayload(memo[contract.MemoSummary], &summary))
	require.NoError(t, dc.FromPayload(memo[contract.MemoContentHash], &hash))
	require.NoError(t, dc.FromPayload(memo[contract.MemoPath], &path))
	assert.Equal(t, contract.Summary(req), summary)
	assert.Equal(t, req.ContentHash(), hash)
	assert.Equal(t, contract.PathVersion, path, "the start asks for the path")

	sa := attrs.GetSearchAttributes().GetIndexedFields()
	decode := func(name string, v any) {
		t.Helper()
		require.Containsf(t, sa, name, "search attribute %s set at start", name)
		require.NoError(t, dc.FromPayload(sa[name], v))
	}
	var cluster, job, phase string
	var epoch, checkpoint int64
	var since time.Time
	decode(contract.AttrCluster.GetName(), &cluster)
	decode(contract.AttrJob.GetName(), &job)
	decode(contract.AttrEpoch.GetName(), &epoch)
	decode(contract.AttrCheckpoint.GetName(), &checkpoint)
	decode(contract.AttrPhase.GetName(), &phase)
	decode(contract.AttrPhaseSince.GetName(), &since)
	assert.Equal(t, req.Cluster, cluster)
	assert.Equal(t, req.Job, job)
	assert.Equal(t, int64(req.Epoch), epoch)
	assert.Equal(t, int64(req.Checkpoint), checkpoint)
	assert.Equal(t, string(contract.Persisting), phase)
	assert.False(t, since.IsZero())
}

// startEvent reads the execution's start event.
func (e *env) startEvent(workflowID string) *historypb.WorkflowExecutionStartedEventAttributes {
	t := e.t
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	it := e.temporal.GetWorkflowHistory(ctx, workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	require.Truef(t, it.HasNext(), "%s: a history", workflowID)
	ev, err := it.Next()
	require.NoError(t, err)
	attrs := ev.GetWorkflowExecutionStartedEventAttributes()
	require.NotNilf(t, attrs, "%s: the first event starts the execution", workflowID)
	return attrs
}

// startInput decodes the execution's input, as its starter sent it.
func (e *env) startInput(workflowID string, v any) {
	e.t.Helper()
	require.NoError(e.t, converter.GetDefaultDataConverter().FromPayloads(e.startEvent(workflowID).GetInput(), v))
}

// checkRestore checks a resolved restore point against the request that
// published its checkpoint.
func (e *env) checkRestore(rp contract.RestorePoint, req contract.FinalizeRequest, handleKey string) {
	t := e.t
	t.Helper()
	assert.Equal(t, req.Cluster, rp.Cluster)
	assert.Equal(t, req.Job, rp.Job)
	require.Equalf(t, contract.RestoreResolved, rp.State, "restore point %+v", rp)
	require.NotNil(t, rp.Latest)
	assert.Equal(t, req.Checkpoint, rp.Latest.Checkpoint)
	assert.Equal(t, req.Epoch, rp.Latest.Epoch)
	assert.Equal(t, req.MetadataKey, rp.Latest.MetadataKey)
	assert.Equal(t, req.MetadataSHA256, rp.Latest.MetadataSHA256)
	assert.Equal(t, req.ExclusivePrefix, rp.Latest.ExclusivePrefix)
	assert.Equal(t, handleKey, rp.Latest.HandleKey)
	assert.Equal(t, e.restorePath(req.MetadataKey), rp.Latest.RestorePath)
	assert.Nil(t, rp.Fallback)
}

// restorePath is the metadata file's URL in the test's bucket.
func (e *env) restorePath(key string) string { return "file://" + e.bucket + "/" + key }

// awaitStatus queries the finalization through the driver until done
// holds; the deadline only bounds a hung run.
func (d driver) awaitStatus(epoch, n uint64, what string, done func(contract.Status) bool) contract.Status {
	t := d.env.t
	t.Helper()
	var st contract.Status
	deadline := time.Now().Add(3 * time.Minute)
	for {
		d.okAs(status, &st, "status", jsonNumber(epoch), jsonNumber(n))
		if done(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("finalization %d/%d never %s; last status %+v", epoch, n, what, st)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func jsonNumber(n uint64) string { return strconv.FormatUint(n, 10) }
