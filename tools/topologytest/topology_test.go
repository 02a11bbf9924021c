package topologytest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/internal/realserver"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/stores/zookeeper"
	"github.com/checkpoint-finalizer/finalizer/tools/topology"
	"github.com/checkpoint-finalizer/finalizer/workflows"
)

const (
	cluster = "prod"
	jobs    = 3
	// minPerJob checkpoints at least per job manager; they trigger until
	// the faults are over.
	minPerJob = 8
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// logWriter sends progress lines to the test log.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// triggered is one finalization a job manager triggered.
type triggered struct {
	req contract.FinalizeRequest
	f   *client.Finalization
	res contract.FinalizeResult
}

// The whole production topology under load, with a worker kill -9ed and
// restarted, the Temporal server killed and restarted, PostgreSQL crashed
// and restarted and the ZooKeeper leader killed: every finalization ends,
// I1/I2/I4/I7 hold on what ZooKeeper and the bucket hold, retention and
// discards settle (I5, I3), visibility on PostgreSQL counts what ended, and
// `finalizer list --stuck` lists a finalization parked in Verifying while
// ZooKeeper has no quorum, and nothing once it resolved.
func TestProductionTopology(t *testing.T) {
	realserver.Require(t, "temporal-server, PostgreSQL and ZooKeeper ensemble")
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Minute)
	defer cancel()
	start := time.Now()

	dir, err := os.MkdirTemp("", "topologytest-")
	require.NoError(t, err)
	tp, err := topology.Up(ctx, topology.Options{Dir: dir, Progress: logWriter{t}})
	require.NoError(t, err)
	t.Cleanup(func() {
		if err := tp.Down(); err != nil {
			t.Errorf("down: %v", err)
		}
		if t.Failed() {
			t.Logf("kept the topology's logs and data in %s", dir)
			return
		}
		_ = os.RemoveAll(dir)
	})
	t.Logf("topology up in %s:\n%s", time.Since(start).Round(time.Second), tp.Status())

	tc, err := tp.Dial(ctx)
	require.NoError(t, err)
	defer tc.Close()
	c := client.New(tc, client.Options{TaskQueue: tp.TaskQueue})
	bucket := jobmanager.Bucket{Dir: tp.Bucket}

	// Several job managers, one job each, each claiming its epoch and then
	// triggering a checkpoint every ~250 ms without waiting for the last.
	var (
		mu         sync.Mutex
		all        []*triggered
		count      atomic.Int64
		transient  atomic.Int64
		faultsDone atomic.Bool
	)
	jobIDs := make([]stores.JobID, jobs)
	var wg sync.WaitGroup
	for j := range jobIDs {
		job := stores.JobID{Cluster: cluster, Job: fmt.Sprintf("job-%d", j+1)}
		jobIDs[j] = job
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := retry(ctx, &transient, func() (contract.RestorePoint, error) {
				return c.ClaimEpoch(ctx, contract.ClaimRequest{Cluster: job.Cluster, Job: job.Job, Epoch: 1, Owner: "jm-" + job.Job})
			})
			if !assert.NoError(t, err, "claim %s", job) {
				return
			}
			// Until every fault is over, and then a few more: the stream
			// runs across all of them.
			after := 0
			for n := uint64(1); ; n++ {
				if faultsDone.Load() {
					after++
				}
				if after > 3 && n > minPerJob {
					break
				}
				req, err := bucket.WriteCheckpoint(job, 1, n, n%5 == 0)
				if !assert.NoError(t, err) {
					return
				}
				f, err := retry(ctx, &transient, func() (*client.Finalization, error) { return c.Finalize(ctx, req) })
				if !assert.NoError(t, err, "finalize %s", req.WorkflowID()) {
					return
				}
				mu.Lock()
				all = append(all, &triggered{req: req, f: f})
				mu.Unlock()
				count.Add(1)
				time.Sleep(400 * time.Millisecond)
			}
		}()
	}

	// The faults, mid-stream: each once the job managers have triggered
	// a few more finalizations since the last one ended, so that some are
	// in flight when it hits.
	next := func() {
		target := count.Load() + 6
		for count.Load() < target && ctx.Err() == nil {
			time.Sleep(50 * time.Millisecond)
		}
	}
	next()
	t.Logf("fault: kill -9 %s, then start it again (%d triggered)", tp.Workers[0].Name, count.Load())
	require.NoError(t, tp.KillWorker(0))
	time.Sleep(2 * time.Second)
	require.NoError(t, tp.StartWorker(ctx, 0))

	next()
	t.Logf("fault: kill -9 the Temporal server, then start it again (%d triggered)", count.Load())
	require.NoError(t, tp.KillTemporal())
	time.Sleep(2 * time.Second)
	require.NoError(t, tp.StartTemporal(ctx))

	next()
	t.Logf("fault: PostgreSQL crashed (pg_ctl stop -m immediate) and started again (%d triggered)", count.Load())
	require.NoError(t, tp.RestartPostgres())

	next()
	leader, err := tp.ZooKeeperLeader()
	require.NoError(t, err)
	t.Logf("fault: kill -9 the ZooKeeper leader, node %d, then start it again (%d triggered)", leader.ID, count.Load())
	require.NoError(t, tp.KillZooKeeperNode(leader.ID))
	time.Sleep(3 * time.Second)
	require.NoError(t, tp.StartZooKeeper())
	faultsDone.Store(true)
	atFaultsDone := count.Load()

	wg.Wait()
	require.False(t, t.Failed(), "a job manager failed")
	require.Greater(t, count.Load(), atFaultsDone, "the job managers triggered on after the faults")
	t.Logf("%d finalizations triggered, %d transient errors retried by the job managers", len(all), transient.Load())

	// A finalization parked in Verifying: ZooKeeper without a quorum (two
	// of three nodes down) cannot answer its publish.
	t.Log("quorum loss: kill -9 two ZooKeeper nodes, trigger one more checkpoint")
	down := []int{}
	for _, n := range tp.ZooKeeper {
		if len(down) < 2 {
			down = append(down, n.ID)
			require.NoError(t, tp.KillZooKeeperNode(n.ID))
		}
	}
	var lastOfJob0 uint64
	for _, tr := range all {
		if tr.req.CheckpointID().JobID == jobIDs[0] {
			lastOfJob0 = max(lastOfJob0, tr.req.Checkpoint)
		}
	}
	parkedReq, err := bucket.WriteCheckpoint(jobIDs[0], 1, lastOfJob0+1, false)
	require.NoError(t, err)
	pf, err := retry(ctx, &transient, func() (*client.Finalization, error) { return c.Finalize(ctx, parkedReq) })
	require.NoError(t, err)
	parked := &triggered{req: parkedReq, f: pf}
	all = append(all, parked)
	require.Eventually(t, func() bool {
		st, err := pf.Status(ctx)
		return err == nil && st.Phase == contract.Verifying
	}, 5*time.Minute, 250*time.Millisecond, "the publish without a quorum parks in Verifying")
	require.Eventually(t, func() bool {
		var list []client.Stuck
		out, err := cli(ctx, tp, "list", "--stuck", "--older-than", "1s", "--json")
		if err != nil || json.Unmarshal(out, &list) != nil {
			return false
		}
		for _, s := range list {
			if s.WorkflowID == parkedReq.WorkflowID() {
				return true
			}
		}
		return false
	}, 2*time.Minute, time.Second, "`finalizer list --stuck` lists the parked finalization (PostgreSQL visibility)")
	t.Log("`finalizer list --stuck` listed it; ZooKeeper nodes start again")
	require.NoError(t, tp.StartZooKeeper())

	// Every finalization ends.
	for _, tr := range all {
		tr.res, err = retry(ctx, &transient, func() (contract.FinalizeResult, error) {
			wctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			return tr.f.Wait(wctx)
		})
		require.NoError(t, err, "wait for %s", tr.req.WorkflowID())
	}
	phases := map[contract.Phase]int{}
	for _, tr := range all {
		phases[tr.res.Phase]++
		assert.Contains(t, []contract.Phase{contract.Published, contract.Discarded}, tr.res.Phase,
			"%s ended %s: %s", tr.req.WorkflowID(), tr.res.Phase, tr.res.Reason)
	}
	t.Logf("outcomes: %v", phases)
	assert.Positive(t, phases[contract.Published])

	// The invariants, on what ZooKeeper and the bucket hold.
	store, err := zookeeper.Open(ctx, zookeeper.Config{Servers: tp.ZooKeeperServers(), Root: tp.ZooKeeperRoot, SessionTimeout: 10 * time.Second}, quiet)
	require.NoError(t, err)
	defer store.Close()
	states, err := blobstate.Open(ctx, tp.BucketURL())
	require.NoError(t, err)
	defer states.Close()
	chk := checker{t: t, store: store, states: states, bucket: bucket}
	for _, job := range jobIDs {
		chk.references(ctx, job)
	}
	for _, tr := range all {
		chk.finalization(ctx, tr)
	}
	// I5 and I3 once the coordinators' passes settled: retention keeps
	// what it should, and no checkpoint's data is left without a reference
	// (savepoints excepted: never deleted).
	require.Eventually(t, func() bool {
		return chk.settled(ctx, jobIDs, all, tp.Retain) == ""
	}, 5*time.Minute, time.Second, "retention and discards settle")

	// PostgreSQL visibility answers queries on the search attributes.
	want := phases[contract.Published]
	query := fmt.Sprintf(`CheckpointCluster = %q AND FinalizationPhase = "Published"`, cluster)
	require.Eventually(t, func() bool {
		resp, err := tc.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: tp.Temporal.Namespace, Query: query})
		return err == nil && int(resp.GetCount()) == want
	}, 2*time.Minute, time.Second, "visibility counts %d Published finalizations", want)
	out, err := cli(ctx, tp, "list", "--stuck", "--older-than", "0s", "--json")
	require.NoError(t, err, "%s", out)
	var stuck []client.Stuck
	require.NoError(t, json.Unmarshal(out, &stuck), "%s", out)
	assert.Empty(t, stuck, "nothing stays Verifying")
	out, err = cli(ctx, tp, "status", "--cluster", cluster, "--job", parkedReq.Job, "--epoch", "1", "--checkpoint", fmt.Sprint(parkedReq.Checkpoint))
	require.NoError(t, err, "%s", out)
	t.Logf("finalizer status of the parked one:\n%s", out)
	t.Logf("test run time %s", time.Since(start).Round(time.Second))
}

// cli runs the finalizer CLI against the topology.
func cli(ctx context.Context, tp *topology.Topology, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tp.CLI, args...)
	cmd.Env = append(os.Environ(), tp.CLIEnv()...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return append(stdout.Bytes(), stderr.Bytes()...), fmt.Errorf("finalizer %s: %w", strings.Join(args, " "), err)
	}
	return stdout.Bytes(), nil
}

// retry retries f while it fails with anything but a refusal the job
// manager cannot retry (invalid request, different content, stale epoch).
func retry[T any](ctx context.Context, transient *atomic.Int64, f func() (T, error)) (T, error) {
	for {
		v, err := f()
		var mismatch *client.ContentMismatchError
		switch {
		case err == nil:
			return v, nil
		case errors.Is(err, client.ErrInvalidRequest), errors.As(err, &mismatch), errors.Is(err, client.ErrStaleEpoch):
			return v, err
		case ctx.Err() != nil:
			return v, errors.Join(err, ctx.Err())
		}
		transient.Add(1)
		time.Sleep(500 * time.Millisecond)
	}
}

// checker checks I1, I2, I4 and I7 the way tools/faultharness does
// (check.go, reference.go), on one store and a file bucket.
type checker struct {
	t      *testing.T
	store  *zookeeper.Store
	states *blobstate.Store
	bucket jobmanager.Bucket
}

// references is I1: every published reference resolves to a handle whose
// metadata checks and whose data and shared file exist.
func (c checker) references(ctx context.Context, job stores.JobID) {
	t := c.t
	list, err := c.store.List(ctx, job)
	require.NoError(t, err)
	assert.NotEmpty(t, list, "%s has published references", job)
	for _, e := range list {
		h, err := c.states.ReadKey(ctx, e.Reference.Handle)
		if !assert.NoError(t, err, "I1: %s checkpoint %d's handle resolves", job, e.Checkpoint) {
			continue
		}
		assert.NoError(t, c.states.CheckData(ctx, h), "I1: %s checkpoint %d's metadata", job, e.Checkpoint)
		assert.True(t, c.bucket.Exists(h.ExclusivePrefix+"data-0"), "I1: %s checkpoint %d's data", job, e.Checkpoint)
		assert.True(t, c.bucket.Exists(jobmanager.SharedKey(job)), "I1: %s's shared file", job)
	}
}

// finalization is I4, I2 and I7: a Published finalization's reference, or
// the tombstone that removed it, is in the store (or it was subsumed and
// the tombstone collected); a Discarded one's token was never published
// and nothing can land any more.
func (c checker) finalization(ctx context.Context, tr *triggered) {
	t := c.t
	id := tr.req.CheckpointID()
	e, err := c.store.Read(ctx, id)
	require.NoError(t, err)
	js, err := c.store.ReadJob(ctx, id.JobID)
	require.NoError(t, err)
	token := tr.req.Token()
	removed := e.Tombstone != nil && e.Tombstone.Token == token && e.Tombstone.Reason != stores.ReasonFenced
	switch tr.res.Phase {
	case contract.Published:
		collected := e.Reference == nil && tr.req.Checkpoint <= js.Watermark
		assert.True(t, e.HoldsToken(token) || removed || collected, "I4: %s ended Published, but its key holds %+v", id, e)
	case contract.Discarded:
		assert.False(t, e.HoldsToken(token), "I2: %s discarded while its reference is present", id)
		assert.False(t, removed, "I7: %s ended Discarded, but its reference was published", id)
		assert.False(t, e.Absent() && !js.Retired && js.Epoch == tr.req.Epoch && js.Watermark < tr.req.Checkpoint,
			"I2: %s discarded with no fence while an attempt could still land", id)
	}
}

// settled says what is not settled yet: retention (I5) and state at rest
// without a reference (I3: a checkpoint's data file present though no
// reference points at it and it is no savepoint); "" when all is.
func (c checker) settled(ctx context.Context, jobIDs []stores.JobID, all []*triggered, retain int) string {
	referenced := map[stores.CheckpointID]bool{}
	for _, job := range jobIDs {
		list, err := c.store.List(ctx, job)
		if err != nil {
			return err.Error()
		}
		if keep, remove := workflows.RetentionPlan(list, retain); len(remove) > 0 {
			return fmt.Sprintf("I5: %s keeps %d references, retention %v", job, len(list), keep)
		}
		for _, e := range list {
			referenced[stores.CheckpointID{JobID: job, Checkpoint: e.Checkpoint}] = true
		}
	}
	for _, tr := range all {
		id := tr.req.CheckpointID()
		if !referenced[id] && !tr.req.Savepoint && c.bucket.Exists(tr.req.ExclusivePrefix+"data-0") {
			return fmt.Sprintf("I3: %s's data is left without a reference", id)
		}
	}
	return ""
}
