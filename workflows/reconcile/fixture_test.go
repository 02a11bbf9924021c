package reconcile_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"

	"github.com/checkpoint-finalizer/finalizer/activities"
	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/contracttest"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/workflowtest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/workflows/reconcile"
)

var job = workflowtest.Job

// fixture runs the Reconcile workflow in the SDK's test environment over
// its real activities, the real embedded store (wrapped, to make the fence
// unanswerable on demand) and a real file bucket: the world the
// finalizer's tests run over (workflowtest.World). Only Temporal's answer
// about finalizations is scripted (finals): the workflow under test is the
// layer above it. Only the reconciler's pair is registered, so a run that
// needed anything of the finalizer's would fail here.
type fixture struct {
	t *testing.T
	workflowtest.World
	finals *scriptedFinalizations
	acts   *reconcileacts.Activities
	// onActivity, when set, runs as each activity starts.
	onActivity func(name string)
	// metrics captures what the workflows emit.
	metrics *capturedMetrics
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, World: workflowtest.NewWorld(t), finals: &scriptedFinalizations{}, metrics: &capturedMetrics{}}
	f.acts = &reconcileacts.Activities{
		Inventory: f.Inner, References: f.Refs, States: f.States, Handles: f.States, Finalizations: f.finals,
		Floors: reconcileacts.DefaultFloors(),
	}
	return f
}

// reconcile runs one Reconcile at the given workflow time and returns its
// result, which must equal what the status query answers afterwards.
func (f *fixture) reconcile(req contract.ReconcileRequest, at time.Time) contract.ReconcileReport {
	f.t.Helper()
	return f.run(f.env(at), req)
}

// run runs one Reconcile in env, as reconcile does.
func (f *fixture) run(env *testsuite.TestWorkflowEnvironment, req contract.ReconcileRequest) contract.ReconcileReport {
	f.t.Helper()
	env.ExecuteWorkflow(contract.ReconcileWorkflow, req)
	require.True(f.t, env.IsWorkflowCompleted())
	require.NoError(f.t, env.GetWorkflowError())
	var rep contract.ReconcileReport
	contracttest.DecodeChecked(f.t, "reconcile-report.schema.json", env.GetWorkflowResult, &rep)
	v, err := env.QueryWorkflow(contract.StatusQuery)
	require.NoError(f.t, err)
	var status contract.ReconcileReport
	contracttest.DecodeChecked(f.t, "reconcile-report.schema.json", v.Get, &status)
	require.Equal(f.t, rep, status, "the status query answers the report")
	return rep
}

// env is a test environment whose workflow time starts at at, and the
// worker's clock, which the activities' floors count back from, reads at.
func (f *fixture) env(at time.Time) *testsuite.TestWorkflowEnvironment {
	f.acts.Clock = func() time.Time { return at }
	suite := workflowtest.Suite()
	suite.SetMetricsHandler(metricsHandler{captured: f.metrics})
	env := suite.NewTestWorkflowEnvironment()
	env.SetStartTime(at)
	reconcile.Register(env)
	env.RegisterActivity(f.acts)
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		if f.onActivity != nil {
			f.onActivity(info.ActivityType.Name)
		}
	})
	return env
}

// apply is the applied request with the defaults and every action on.
func apply() contract.ReconcileRequest {
	req := contract.NewReconcileRequest(job.Cluster)
	req.Apply, req.QuarantineDangling = true, true
	return req
}

// dryRun asks for everything, changes nothing.
func dryRun() contract.ReconcileRequest {
	req := apply()
	req.Apply = false
	return req
}

// later is a workflow time at which every handle written now is past the
// default grace period, and no tombstone past the default TTL.
func later() time.Time { return time.Now().Add(2 * contract.DefaultReconcileGrace) }

// checkpoint writes checkpoint n's files and its handle blob, as a
// finalization does before it publishes, and returns its request.
func (f *fixture) checkpoint(epoch, n uint64, savepoint bool) contract.FinalizeRequest {
	f.t.Helper()
	return f.checkpointOf(job, epoch, n, savepoint)
}

func (f *fixture) checkpointOf(job stores.JobID, epoch, n uint64, savepoint bool) contract.FinalizeRequest {
	f.t.Helper()
	req, err := f.Bucket.WriteCheckpoint(job, epoch, n, savepoint)
	require.NoError(f.t, err)
	_, err = f.States.Write(context.Background(), activities.HandleOf(req))
	require.NoError(f.t, err)
	return req
}

// published is a checkpoint whose finalization published it.
func (f *fixture) published(n uint64) contract.FinalizeRequest {
	f.t.Helper()
	req := f.checkpoint(1, n, false)
	require.NoError(f.t, f.Inner.Publish(context.Background(), stores.Publication{
		CheckpointID: req.CheckpointID(), Epoch: req.Epoch,
		Reference: stores.Reference{Handle: activities.HandleOf(req).Key(), Token: req.Token(), Attempt: 1},
	}))
	f.finals.set(req, activities.FinalizationState{Found: true, Status: "Completed", Phase: string(contract.Published)})
	return req
}

func (f *fixture) subsume(n uint64) {
	f.t.Helper()
	require.NoError(f.t, f.Inner.Subsume(context.Background(), stores.CheckpointID{JobID: job, Checkpoint: n}, 1))
}

func (f *fixture) remove(key string) {
	f.t.Helper()
	require.NoError(f.t, os.Remove(filepath.Join(f.Bucket.Dir, key)))
}

// snapshot is everything the store and the bucket hold, to prove a run
// changed nothing.
type snapshot struct {
	Entries []stores.Entry
	State   stores.JobState
	Files   map[string]string
}

func (f *fixture) snapshot() snapshot {
	f.t.Helper()
	entries, err := f.Inner.ListEntries(context.Background(), job)
	require.NoError(f.t, err)
	st, err := f.Inner.ReadJob(context.Background(), job)
	require.NoError(f.t, err)
	files := map[string]string{}
	require.NoError(f.t, filepath.WalkDir(f.Bucket.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		files[path] = string(b)
		return err
	}))
	return snapshot{Entries: entries, State: st, Files: files}
}

// scriptedFinalizations answers for finalizations as a test set them;
// unknown workflow IDs are not found.
type scriptedFinalizations struct {
	mu     sync.Mutex
	states map[string]activities.FinalizationState
}

func (s *scriptedFinalizations) set(req contract.FinalizeRequest, st activities.FinalizationState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.states == nil {
		s.states = map[string]activities.FinalizationState{}
	}
	st.WorkflowID = req.WorkflowID()
	s.states[st.WorkflowID] = st
}

func (s *scriptedFinalizations) Finalization(_ context.Context, id string) (activities.FinalizationState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.states[id]
	if !ok {
		return activities.FinalizationState{WorkflowID: id}, nil
	}
	return st, nil
}

func closed(phase contract.Phase) activities.FinalizationState {
	return activities.FinalizationState{Found: true, Status: "Completed", Phase: string(phase)}
}

func actions[T any](list []T, key func(T) (string, string)) map[string]string {
	out := map[string]string{}
	for _, v := range list {
		k, a := key(v)
		out[k] = a
	}
	return out
}

func orphanActions(r contract.ReconcileReport) map[string]string {
	return actions(r.Orphans, func(o contract.OrphanFinding) (string, string) { return o.HandleKey, o.Action })
}

func danglingActions(r contract.ReconcileReport) map[string]string {
	return actions(r.Dangling, func(d contract.DanglingFinding) (string, string) { return d.Checkpoint, d.Action })
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
