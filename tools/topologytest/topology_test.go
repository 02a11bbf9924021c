package topologytest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/serverbin"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/zookeeper"
	"github.com/checkpoint-finalizer/finalizer/tools/faultharness"
	"github.com/checkpoint-finalizer/finalizer/tools/topology"
	"github.com/checkpoint-finalizer/finalizer/worker"
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
// and the fault harness's own checks (faultharness.Check: I1-I5, I7 and
// the restore points) hold on what ZooKeeper and the bucket hold,
// visibility on PostgreSQL counts what ended, and `finalizer list --stuck`
// lists a finalization parked in Verifying while ZooKeeper has no quorum,
// and nothing once it resolved. Each fault is proven: its target ran
// before, came back as a new process that serves, and finalizations
// started before it ended after it. The topology comes up, is looked at
// and goes down through scripts/topology.sh (finalizer-topology), each
// step in a process of its own.
func TestProductionTopology(t *testing.T) {
	realserver.Require(t, "temporal-server, PostgreSQL and ZooKeeper ensemble")
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Minute)
	defer cancel()
	start := time.Now()

	dir, err := os.MkdirTemp("", "topologytest-")
	require.NoError(t, err)
	command := command{t}
	// The workers start on the previous release; a rolling upgrade
	// mid-stream moves them, and the coordinators, to this build.
	previous, err := topology.BuildWorkerAt(ctx, previousRelease)
	require.NoError(t, err)
	upOut, upErr := command.run(ctx, "up", "-dir", dir, "-worker-binary", previous)
	t.Cleanup(func() {
		// down from this process, should the test stop before its own
		// `scripts/topology.sh down`.
		if tp, err := topology.Load(dir); err == nil {
			if err := tp.Down(); err != nil {
				t.Errorf("down: %v", err)
			}
		}
		if t.Failed() {
			t.Logf("kept the topology's logs and data in %s", dir)
			return
		}
		_ = os.RemoveAll(dir)
	})
	require.NoError(t, upErr, "%s", upOut)
	tp, err := topology.Load(dir)
	require.NoError(t, err)
	t.Logf("topology up in %s:\n%s", time.Since(start).Round(time.Second), upOut)
	ports := tp.Ports()
	checkPrinted(ctx, t, tp, parsePrinted(t, upOut), "up")
	statusOut, err := command.run(ctx, "status", "-dir", dir)
	require.NoError(t, err, "%s", statusOut)
	checkPrinted(ctx, t, tp, parsePrinted(t, statusOut), "status")

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
		claims     []faultharness.Claim
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
			rp, err := retry(ctx, &transient, func() (contract.RestorePoint, error) {
				return c.ClaimEpoch(ctx, contract.ClaimRequest{Cluster: job.Cluster, Job: job.Job, Epoch: 1, Owner: jobmanager.Owner(1)})
			})
			if !assert.NoError(t, err, "claim %s", job) {
				return
			}
			mu.Lock()
			claims = append(claims, faultharness.Claim{Job: job, Epoch: 1, RestorePoint: rp})
			mu.Unlock()
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

	// more waits until the job managers have triggered six more
	// finalizations and returns how many were triggered.
	more := func() int64 {
		until := count.Load() + 6
		for count.Load() < until && ctx.Err() == nil {
			time.Sleep(50 * time.Millisecond)
		}
		return count.Load()
	}
	// backlog pauses every worker (SIGSTOP) while six more are triggered:
	// none of them can end before the fault, so it hits them in flight.
	// Seeing one run and then crashing raced a finalization that ends in
	// 25 ms: it could close between the server's answer and the crash.
	// Each fault's crash resumes the workers first (but the one it
	// kills), so they are mid-work with a backlog when it hits.
	backlog := func() int64 {
		for i := range tp.Workers {
			require.NoError(t, tp.PauseWorker(i))
		}
		return more()
	}
	resumed := func(crash func() error) func() error {
		return func() error {
			for i := range tp.Workers {
				if err := tp.ResumeWorker(i); err != nil {
					return err
				}
			}
			return crash()
		}
	}
	var faults []fault
	// Worker 2 stays paused through the kill, so that nothing serves the
	// backlog before worker 1 dies holding its share of it. The job
	// managers trigger a few first: their claims are workflows the
	// workers must run before anything is triggered.
	faults = append(faults, inject(ctx, t, func() int64 { more(); return backlog() }, target{
		name:    fmt.Sprintf("kill -9 %s while %s is paused, then start it again", tp.Workers[0].Name, tp.Workers[1].Name),
		pid:     tp.Workers[0].PID,
		serving: func() error { return worker.Healthcheck(ctx, tp.Workers[0].Metrics) },
		crash:   func() error { return tp.KillWorker(0) },
		restart: func() error {
			if err := tp.ResumeWorker(1); err != nil {
				return err
			}
			time.Sleep(2 * time.Second)
			return tp.StartWorker(ctx, 0)
		},
	}))

	upgrade := rollingUpgrade(ctx, t, command, tp, more())

	faults = append(faults, inject(ctx, t, backlog, target{
		name:    "kill -9 the Temporal server, then start it again",
		pid:     tp.TemporalPID,
		serving: func() error { _, err := tc.CheckHealth(ctx, &sdkclient.CheckHealthRequest{}); return err },
		crash:   resumed(tp.KillTemporal),
		restart: func() error { time.Sleep(2 * time.Second); return tp.StartTemporal(ctx) },
	}))

	faults = append(faults, inject(ctx, t, backlog, target{
		name:    "PostgreSQL crashed (pg_ctl stop -m immediate) and started again",
		pid:     tp.Postgres.PID,
		serving: tp.Postgres.Ready,
		crash:   resumed(tp.CrashPostgres),
		restart: tp.StartPostgres,
	}))

	leader, err := tp.ZooKeeperLeader()
	require.NoError(t, err)
	faults = append(faults, inject(ctx, t, backlog, target{
		name:    fmt.Sprintf("kill -9 the ZooKeeper leader, node %d, then start it again", leader.ID),
		pid:     leader.PID,
		serving: func() error { _, err := leader.Mode(); return err },
		crash:   resumed(func() error { return tp.KillZooKeeperNode(leader.ID) }),
		restart: func() error { time.Sleep(3 * time.Second); return tp.StartZooKeeper() },
	}))
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

	checksBegan := time.Now()
	// Each fault hit finalizations in flight: at least one started
	// (Temporal's start time) before it and closed after it.
	spans := make([]span, 0, len(all))
	for _, tr := range all {
		d, err := tc.DescribeWorkflow(ctx, tr.req.WorkflowID(), "")
		require.NoError(t, err, "describe %s", tr.req.WorkflowID())
		require.NotNil(t, d.WorkflowCloseTime, "%s closed", tr.req.WorkflowID())
		spans = append(spans, span{d.WorkflowStartTime, *d.WorkflowCloseTime})
	}
	for _, f := range faults {
		n := 0
		for _, s := range spans {
			if s.start.Before(f.at) && s.end.After(f.at) {
				n++
			}
		}
		t.Logf("fault %q: %d finalizations in flight", f.name, n)
		assert.Positive(t, n, "fault %q hit no finalization in flight", f.name)
	}

	// The invariants, with the fault harness's own checks, on what
	// ZooKeeper and the bucket hold.
	store, err := zookeeper.Open(ctx, zookeeper.Config{Servers: tp.ZooKeeperServers(), Root: tp.ZooKeeperRoot, SessionTimeout: 10 * time.Second}, quiet)
	require.NoError(t, err)
	closeStore := sync.OnceFunc(func() { _ = store.Close() })
	defer closeStore()
	observed := faultharness.Observed{Store: store, Bucket: tp.BucketURL(), Retain: tp.Retain, Claims: claims}
	for _, tr := range all {
		observed.Finalizations = append(observed.Finalizations, faultharness.Outcome{Request: tr.req, Ended: true, Result: tr.res})
	}
	// Retention and discards settle first (retention's passes), as
	// a harness run waits for them before it checks.
	require.Eventually(t, func() bool {
		n, err := faultharness.Leftovers(ctx, observed)
		return err == nil && n == 0
	}, 5*time.Minute, time.Second, "retention and discards settle")
	checkInvariants(ctx, t, observed, "after the faults")
	// A simulated recovery: each job manager claims epoch 2; its restore
	// point is judged against every Published finalization of epoch 1.
	for _, job := range jobIDs {
		rp, err := retry(ctx, &transient, func() (contract.RestorePoint, error) {
			return c.ClaimEpoch(ctx, contract.ClaimRequest{Cluster: job.Cluster, Job: job.Job, Epoch: 2, Owner: jobmanager.Owner(2)})
		})
		require.NoError(t, err, "recovery claim of %s", job)
		assert.Equal(t, contract.RestoreResolved, rp.State, "%s restores from a checkpoint", job)
		observed.Claims = append(observed.Claims, faultharness.Claim{Job: job, Epoch: 2, RestorePoint: rp})
	}
	checkInvariants(ctx, t, observed, "after the recovery claims")
	upgrade.check(ctx, t, tc, jobIDs, all)
	t.Logf("in-flight proof, settling, checks and recovery claims took %s", time.Since(checksBegan).Round(time.Millisecond))

	// PostgreSQL visibility answers queries on the search attributes.
	// Every finalization ended with a result (an uneventful one lists no
	// phase of its own: its close status and result say it).
	want := 0
	for _, n := range phases {
		want += n
	}
	query := fmt.Sprintf(`CheckpointCluster = %q AND WorkflowType = %q AND ExecutionStatus = "Completed"`, cluster, contract.FinalizeWorkflow)
	require.Eventually(t, func() bool {
		resp, err := tc.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: tp.Temporal.Namespace, Query: query})
		return err == nil && int(resp.GetCount()) == want
	}, 2*time.Minute, time.Second, "visibility counts %d completed finalizations", want)
	out, err := cli(ctx, tp, "list", "--stuck", "--older-than", "0s", "--json")
	require.NoError(t, err, "%s", out)
	var stuck []client.Stuck
	require.NoError(t, json.Unmarshal(out, &stuck), "%s", out)
	assert.Empty(t, stuck, "nothing stays Verifying")
	out, err = cli(ctx, tp, "status", "--cluster", cluster, "--job", parkedReq.Job, "--epoch", "1", "--checkpoint", fmt.Sprint(parkedReq.Checkpoint))
	require.NoError(t, err, "%s", out)
	t.Logf("finalizer status of the parked one:\n%s", out)

	// status from another process sees the restarted processes' new pids;
	// down from another process stops everything.
	statusOut, err = command.run(ctx, "status", "-dir", dir)
	require.NoError(t, err, "%s", statusOut)
	after := parsePrinted(t, statusOut)
	checkPrinted(ctx, t, tp, after, "status after the faults")
	for _, f := range faults {
		t.Logf("fault %q: pid %d, then %d", f.name, f.before, f.after)
	}
	assert.Equal(t, upgrade.after[tp.Workers[0].Name], after.pids[tp.Workers[0].Name], "status shows the worker's pid after its restart and the upgrade")
	assert.Equal(t, faults[1].after, after.pids["temporal"], "status shows the restarted server's pid")
	closeStore()
	command.down(ctx, dir, ports)
	t.Logf("test run time %s", time.Since(start).Round(time.Second))
}

// checkPrinted checks what `up` or `status` printed against topology.json
// and the pid files, and uses the printed addresses: every worker's
// /readyz answers, and the finalizer CLI with the printed environment
// reaches the printed Temporal frontend.
func checkPrinted(ctx context.Context, t *testing.T, tp *topology.Topology, p printed, what string) {
	t.Helper()
	assert.Empty(t, p.stopped, "%s: stopped parts:\n%s", what, p.rawLines)
	type part struct {
		addr string
		pid  int
	}
	want := map[string]part{
		"postgresql": {tp.Postgres.Addr(), tp.Postgres.PID()},
		"temporal":   {tp.Temporal.Frontend, tp.TemporalPID()},
		"web-ui":     {tp.UI.URL, tp.UIPID()},
	}
	for i := range tp.ZooKeeper {
		n := &tp.ZooKeeper[i]
		want[n.Process.Name] = part{n.Addr, n.PID()}
	}
	for i := range tp.Workers {
		w := &tp.Workers[i]
		want[w.Name] = part{w.Metrics, w.PID()}
	}
	for part, w := range want {
		assert.NotZero(t, w.pid, "%s: %s runs", what, part)
		assert.Equal(t, w.addr, p.addrs[part], "%s: %s's address", what, part)
		assert.Equal(t, w.pid, p.pids[part], "%s: %s's pid (its pid file)", what, part)
	}
	for part, addr := range p.addrs {
		if !strings.HasPrefix(part, "worker-") {
			continue
		}
		resp, err := http.Get("http://" + addr + "/readyz")
		if assert.NoError(t, err, "%s: %s /readyz", what, part) {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s /readyz: %s", what, part, body)
		}
	}
	// The printed Web UI serves the namespace from the frontend.
	resp, err := http.Get(p.addrs["web-ui"] + "/api/v1/namespaces/" + tp.Temporal.Namespace)
	if assert.NoError(t, err, "%s: the Web UI", what) {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, "%s: the Web UI's namespace: %s", what, body)
		var ns struct {
			NamespaceInfo struct{ Name string } `json:"namespaceInfo"`
		}
		assert.NoError(t, json.Unmarshal(body, &ns), "%s: the Web UI's namespace: %s", what, body)
		assert.Equal(t, tp.Temporal.Namespace, ns.NamespaceInfo.Name, "%s: the Web UI's namespace: %s", what, body)
	}
	assert.Equal(t, tp.CLI, p.cli)
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, p.cli, "list", "--stuck", "--older-than", "1h", "--json")
	cmd.Env = append(os.Environ(), p.cliEnv...)
	out, err := cmd.CombinedOutput()
	assert.NoError(t, err, "%s: the printed CLI line: %s", what, out)
	var stuck []client.Stuck
	assert.NoError(t, json.Unmarshal(out, &stuck), "%s: %s", what, out)
}

// checkInvariants runs the fault harness's checks on what the test saw.
func checkInvariants(ctx context.Context, t *testing.T, o faultharness.Observed, when string) {
	t.Helper()
	violations, err := faultharness.Check(ctx, o)
	require.NoError(t, err, "the checks could not read the store or the bucket %s", when)
	for _, v := range violations {
		t.Errorf("%s: %s %s: %s", when, v.Invariant, v.Subject, v.Detail)
	}
	t.Logf("faultharness.Check %s: %d finalizations, %d claims, %d violations", when, len(o.Finalizations), len(o.Claims), len(violations))
}

// span is a finalization's life as Temporal recorded it.
type span struct{ start, end time.Time }

// target is what one fault hits.
type target struct {
	name    string
	pid     func() int
	serving func() error
	crash   func() error
	restart func() error
}

// fault is one fault as it happened.
type fault struct {
	name          string
	at            time.Time
	before, after int
}

// inject proves the target runs and serves, waits (inFlight) until
// finalizations are in flight, crashes the target at once (the crash must
// find them running and leave no process), starts it again and proves it
// came back: a new process that serves.
func inject(ctx context.Context, t *testing.T, inFlight func() int64, tg target) fault {
	t.Helper()
	f := fault{name: tg.name, before: tg.pid()}
	require.NotZero(t, f.before, "%s: the target runs before the fault", tg.name)
	require.NoError(t, tg.serving(), "%s: the target serves before the fault", tg.name)
	triggered := inFlight()
	f.at = time.Now()
	f.name = fmt.Sprintf("%s (%d triggered)", tg.name, triggered)
	t.Logf("fault: %s (pid %d)", f.name, f.before)
	require.NoError(t, tg.crash(), "%s", tg.name)
	require.Zero(t, tg.pid(), "%s: nothing runs after the crash", tg.name)
	require.NoError(t, tg.restart(), "%s: restart", tg.name)
	f.after = tg.pid()
	require.NotZero(t, f.after, "%s: it runs again", tg.name)
	require.NotEqual(t, f.before, f.after, "%s: a new process", tg.name)
	require.Eventually(t, func() bool { return tg.serving() == nil }, 2*time.Minute, 250*time.Millisecond,
		"%s: it serves again", tg.name)
	return f
}

// previousRelease is the commit whose worker the topology starts on before
// its rolling upgrade: the build before the coordinator learned to collect
// subsumed tombstones (CoordinatorState.uncollected), so that the upgrade
// crosses a change of workflow code, activity input and result.
const previousRelease = "b1c87c99db3179394aed646a1b1981d28fb8bec9"

// upgraded is a rolling upgrade as it happened: each worker's process
// before and after.
type upgraded struct {
	at, done      time.Time
	before, after map[string]int
}

// rollingUpgrade replaces the workers by this build through
// `scripts/topology.sh upgrade` (one at a time, each stopped gracefully and
// serving again before the next) while the job managers trigger.
func rollingUpgrade(ctx context.Context, t *testing.T, command command, tp *topology.Topology, triggered int64) upgraded {
	t.Helper()
	u := upgraded{before: map[string]int{}, after: map[string]int{}}
	for _, w := range tp.Workers {
		u.before[w.Name] = w.PID()
		require.NotZero(t, u.before[w.Name], "%s runs before the upgrade", w.Name)
	}
	t.Logf("rolling upgrade to this build (%d triggered)", triggered)
	u.at = time.Now()
	out, err := command.run(ctx, "upgrade", "-dir", tp.Dir)
	require.NoError(t, err, "%s", out)
	u.done = time.Now()
	for i, w := range tp.Workers {
		u.after[w.Name] = w.PID()
		assert.NotZero(t, u.after[w.Name], "%s runs after the upgrade", w.Name)
		assert.NotEqual(t, u.before[w.Name], u.after[w.Name], "%s is a new process", w.Name)
		assert.NoError(t, worker.Healthcheck(ctx, tp.Workers[i].Metrics), "%s serves", w.Name)
	}
	t.Logf("rolling upgrade took %s: %v, then %v", u.done.Sub(u.at).Round(time.Millisecond), u.before, u.after)
	return u
}

// check proves the executions moved to the new build: every job's
// coordinator, which the previous release's finalizations started and
// which lives across the whole stream, completed workflow tasks on a
// previous-release worker and, once a report reaches it after the upgrade
// (as from a previous-release finalization still running then; this
// build's finalizations report to none), on this build's. Finalizations
// that ran on both, and workflow tasks an old worker failed (one it could
// not replay, handed to another), are reported.
func (u upgraded) check(ctx context.Context, t *testing.T, tc sdkclient.Client, jobs []stores.JobID, all []*triggered) {
	t.Helper()
	on := func(pids map[string]int, identities []string) bool {
		for _, id := range identities {
			pid, _, _ := strings.Cut(id, "@")
			for _, p := range pids {
				if strconv.Itoa(p) == pid {
					return true
				}
			}
		}
		return false
	}
	failed := 0
	newest := map[stores.JobID]contract.FinalizeRequest{}
	for _, tr := range all {
		if tr.req.Checkpoint > newest[tr.req.CheckpointID().JobID].Checkpoint {
			newest[tr.req.CheckpointID().JobID] = tr.req
		}
	}
	for _, job := range jobs {
		id := contract.CoordinatorID(job.Cluster, job.Job)
		req := newest[job]
		report := contract.PublishedReport{Cluster: job.Cluster, Job: job.Job, Epoch: req.Epoch, Checkpoint: req.Checkpoint}
		require.NoError(t, tc.SignalWorkflow(ctx, id, "", contract.PublishedSignal, report), id)
		var identities []string
		require.Eventually(t, func() bool {
			identities, _ = taskIdentities(ctx, t, tc, id)
			return on(u.after, identities)
		}, time.Minute, time.Second, "%s moved to this build: %v", id, identities)
		_, f := taskIdentities(ctx, t, tc, id)
		failed += f
		assert.True(t, on(u.before, identities), "%s ran on the previous release: %v", id, identities)
	}
	both := 0
	for _, tr := range all {
		identities, f := taskIdentities(ctx, t, tc, tr.req.WorkflowID())
		failed += f
		if on(u.before, identities) && on(u.after, identities) {
			both++
		}
	}
	t.Logf("rolling upgrade: %d coordinators moved to this build; %d finalizations ran on both builds; %d workflow tasks failed", len(jobs), both, failed)
}

// taskIdentities lists the identities of the workers that completed the
// execution's workflow tasks, in order, and counts its failed tasks.
func taskIdentities(ctx context.Context, t *testing.T, tc sdkclient.Client, workflowID string) ([]string, int) {
	t.Helper()
	var identities []string
	failed := 0
	it := tc.GetWorkflowHistory(ctx, workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(t, err, "history of %s", workflowID)
		switch e.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			identities = append(identities, e.GetWorkflowTaskCompletedEventAttributes().GetIdentity())
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED:
			failed++
		}
	}
	return identities, failed
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

// command is scripts/topology.sh, the command docs/operations.md documents (`go run
// ./cmd/finalizer-topology`, whose binary the Go build cache keeps): the
// topology comes up, is looked at and goes down through it, each time in
// a process of its own, as an operator runs it from a shell.
type command struct{ t *testing.T }

// run runs `scripts/topology.sh args...`: its stdout, its progress on
// stderr logged.
func (c command) run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "bash", append([]string{filepath.Join(serverbin.ScriptsDir(), "topology.sh")}, args...)...)
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, logWriter(c)
	start := time.Now()
	err := cmd.Run()
	if err != nil {
		err = fmt.Errorf("scripts/topology.sh %s: %w", strings.Join(args, " "), err)
	}
	c.t.Logf("scripts/topology.sh %s took %s", args[0], time.Since(start).Round(time.Millisecond))
	return stdout.String(), err
}

// printed is what `up` and `status` print: every part's address and pid.
type printed struct {
	pids     map[string]int    // by part: postgresql, temporal, web-ui, zookeeper-N, worker-N
	addrs    map[string]string // the same keys
	cliEnv   []string
	cli      string
	stopped  []string
	rawLines string
}

var (
	pidRe     = regexp.MustCompile(`running pid (\d+)`)
	metricsRe = regexp.MustCompile(`metrics http://([^/ ]+)/metrics`)
)

func parsePrinted(t *testing.T, out string) printed {
	p := printed{pids: map[string]int{}, addrs: map[string]string{}, rawLines: out}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		part := f[0]
		switch {
		case part == "postgresql" || part == "temporal" || part == "web-ui":
			p.addrs[part] = f[2]
		case strings.HasPrefix(part, "zookeeper-"):
			p.addrs[part] = f[1]
		case strings.HasPrefix(part, "worker-"):
			if m := metricsRe.FindStringSubmatch(line); m != nil {
				p.addrs[part] = m[1]
			}
		case part == "finalizer" && f[1] == "CLI":
			// finalizer CLI     env K=V ... /path/finalizer list --stuck
			for _, w := range f[3:] {
				if strings.Contains(w, "=") {
					p.cliEnv = append(p.cliEnv, w)
					continue
				}
				p.cli = w
				break
			}
			continue
		default:
			continue
		}
		if m := pidRe.FindStringSubmatch(line); m != nil {
			p.pids[part], _ = strconv.Atoi(m[1])
		} else if strings.Contains(line, "stopped") {
			p.stopped = append(p.stopped, part)
		}
	}
	require.NotEmpty(t, p.cli, "the CLI line in:\n%s", out)
	return p
}

// processesUnder lists the processes whose command line names dir (every
// process of the topology does: its binary, data or config is there).
func processesUnder(dir string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue // exited, not yet reaped by its parent
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(dir)) {
			out = append(out, fmt.Sprintf("%d %s", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
		}
	}
	return out
}

// busyPorts are the ports no listener can bind.
func busyPorts(ports []int) []int {
	var busy []int
	for _, p := range ports {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			busy = append(busy, p)
			continue
		}
		l.Close()
	}
	return busy
}

// down runs `scripts/topology.sh down` from a process of its own and checks
// that nothing of the topology runs any more and that every port it used
// is free again; `status` then finds no topology.
func (c command) down(ctx context.Context, dir string, ports []int) {
	t := c.t
	out, err := c.run(ctx, "down", "-dir", dir)
	require.NoError(t, err, "%s", out)
	t.Logf("down: %s", strings.TrimSpace(out))
	assert.Eventually(t, func() bool { return len(processesUnder(dir)) == 0 }, 30*time.Second, 100*time.Millisecond,
		"every process of the topology is gone")
	assert.Empty(t, processesUnder(dir), "left running after down")
	assert.Eventually(t, func() bool { return len(busyPorts(ports)) == 0 }, 30*time.Second, 100*time.Millisecond,
		"every port is free")
	assert.Empty(t, busyPorts(ports), "ports still taken after down, of %v", ports)
	_, err = c.run(ctx, "status", "-dir", dir)
	assert.Error(t, err, "status after down: no topology")
}
