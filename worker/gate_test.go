package worker

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/activities"
	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/workflowtest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/workflows"
)

// The tenant gate's proof: every workflow and activity the worker
// registers (Register, the one list worker.Run uses) is refused for a
// cluster the worker does not serve, by the gate, before its code runs. A
// type added without a Clusters method, or without a sample here, fails.

// recorder is a registry that keeps what Register registers.
type recorder struct {
	workflows  map[string]any // by contract name
	activities []any          // the structs whose methods are activities
}

func (r *recorder) RegisterWorkflow(any) { panic("register workflows under their contract names") }
func (r *recorder) RegisterWorkflowWithOptions(w any, o workflow.RegisterOptions) {
	r.workflows[o.Name] = w
}
func (r *recorder) RegisterDynamicWorkflow(any, workflow.DynamicRegisterOptions) {
	panic("no dynamic workflows")
}
func (r *recorder) RegisterActivity(a any) { r.activities = append(r.activities, a) }

// gateSamples build an input of each type naming a cluster.
var gateSamples = map[reflect.Type]func(cluster string) any{
	reflect.TypeFor[contract.FinalizeRequest](): func(c string) any {
		return contract.FinalizeRequest{Cluster: c, Job: "j1", Epoch: 1, Owner: "jm", Checkpoint: 1}
	},
	reflect.TypeFor[contract.CoordinatorState](): func(c string) any { return contract.CoordinatorState{Cluster: c, Job: "j1", Epoch: 1} },
	reflect.TypeFor[contract.ClaimRequest]():     func(c string) any { return contract.ClaimRequest{Cluster: c, Job: "j1", Epoch: 1, Owner: "jm"} },
	reflect.TypeFor[contract.RetireRequest]():    func(c string) any { return contract.RetireRequest{Cluster: c, Job: "j1", Epoch: 1, Owner: "jm"} },
	reflect.TypeFor[contract.LatestRequest]():    func(c string) any { return contract.LatestRequest{Cluster: c, Job: "j1"} },
	reflect.TypeFor[contract.ReconcileRequest](): func(c string) any { return contract.NewReconcileRequest(c) },
	reflect.TypeFor[workflows.SubsumeRequest](): func(c string) any {
		return workflows.SubsumeRequest{CheckpointID: checkpointOf(c), Epoch: 1, Owner: "jm"}
	},
	reflect.TypeFor[activities.HandleKey](): func(c string) any { return activities.HandleKey(blobstate.Key(checkpointOf(c), 1)) },
	reflect.TypeFor[activities.AbandonInput](): func(c string) any {
		return activities.AbandonInput{HandleKey: activities.HandleKey(blobstate.Key(checkpointOf(c), 1)), Reason: "r"}
	},
	reflect.TypeFor[activities.ClaimInput]():        func(c string) any { return activities.ClaimInput{JobID: jobOf(c), Epoch: 1, Owner: "jm"} },
	reflect.TypeFor[activities.RetireInput]():       func(c string) any { return activities.RetireInput{JobID: jobOf(c), Epoch: 1} },
	reflect.TypeFor[activities.RetiredInput]():      func(c string) any { return activities.RetiredInput{JobID: jobOf(c), Epoch: 1} },
	reflect.TypeFor[blobstate.Handle]():             func(c string) any { return blobstate.Handle{CheckpointID: checkpointOf(c), Epoch: 1} },
	reflect.TypeFor[stores.Publication]():           func(c string) any { return stores.Publication{CheckpointID: checkpointOf(c), Epoch: 1} },
	reflect.TypeFor[activities.VerifyInput]():       func(c string) any { return activities.VerifyInput{CheckpointID: checkpointOf(c), Epoch: 1} },
	reflect.TypeFor[activities.RemovalInput]():      func(c string) any { return activities.RemovalInput{Job: jobOf(c), Epoch: 1} },
	reflect.TypeFor[activities.ReportInput]():       func(c string) any { return activities.ReportInput{WorkflowID: contract.CoordinatorID(c, "j1")} },
	reflect.TypeFor[activities.RestoreInput]():      func(c string) any { return activities.RestoreInput{JobID: jobOf(c)} },
	reflect.TypeFor[activities.SubsumeInput]():      func(c string) any { return activities.SubsumeInput{CheckpointID: checkpointOf(c), Epoch: 1} },
	reflect.TypeFor[stores.JobID]():                 func(c string) any { return jobOf(c) },
	reflect.TypeFor[reconcileacts.ListJobsInput]():  func(c string) any { return reconcileacts.ListJobsInput{Cluster: c} },
	reflect.TypeFor[reconcileacts.InventoryInput](): func(c string) any { return reconcileacts.InventoryInput{JobID: jobOf(c)} },
	reflect.TypeFor[reconcileacts.CollectInput]():   func(c string) any { return reconcileacts.CollectInput{JobID: jobOf(c)} },
	reflect.TypeFor[reconcileacts.OrphanInput]():    func(c string) any { return reconcileacts.OrphanInput{CheckpointID: checkpointOf(c), Epoch: 1} },
	reflect.TypeFor[reconcileacts.QuarantineInput](): func(c string) any {
		return reconcileacts.QuarantineInput{CheckpointID: checkpointOf(c), Token: "t"}
	},
	reflect.TypeFor[reconcileacts.DescribeInput](): func(c string) any {
		return reconcileacts.DescribeInput{JobID: jobOf(c), Finalizations: []reconcileacts.FinalizationIdentity{{Epoch: 1, Checkpoint: 1}}}
	},
}

func jobOf(c string) stores.JobID { return stores.JobID{Cluster: c, Job: "j1"} }
func checkpointOf(c string) stores.CheckpointID {
	return stores.CheckpointID{JobID: jobOf(c), Checkpoint: 1}
}

// inputs are a function's argument types after its context.
func inputs(t *testing.T, name string, fn reflect.Type, first reflect.Type) []reflect.Type {
	t.Helper()
	require.GreaterOrEqual(t, fn.NumIn(), 1, "%s", name)
	require.True(t, fn.In(0) == first, "%s: first argument", name)
	var in []reflect.Type
	for i := 1; i < fn.NumIn(); i++ {
		in = append(in, fn.In(i))
	}
	require.NotEmpty(t, in, "%s takes no input: it cannot say which cluster it touches", name)
	return in
}

// argsFor builds the sample arguments of types for cluster, failing for a
// type that is not ClusterScoped or has no sample.
func argsFor(t *testing.T, name string, types []reflect.Type, cluster string) []any {
	t.Helper()
	var args []any
	for _, typ := range types {
		require.True(t, typ.Implements(reflect.TypeFor[activities.ClusterScoped]()),
			"%s takes %s, which does not say which cluster it touches (give it a Clusters method)", name, typ)
		sample, ok := gateSamples[typ]
		require.True(t, ok, "%s takes %s: add a sample of it to this test", name, typ)
		args = append(args, sample(cluster))
	}
	return args
}

const served, unserved = "c1", "c2"

func gateOptions(t *testing.T) sdkworker.Options {
	layout, err := blobstate.ParseLayout(served + "=" + served)
	require.NoError(t, err)
	return Assemble(Parts{Layout: layout}).Options(workerOptions(Config{}, nil))
}

func registered() *recorder {
	r := &recorder{workflows: map[string]any{}}
	// The fields stay nil: an activity the gate let through would panic,
	// which the test tells apart from the gate's refusal.
	Assemble(Parts{}).Register(r)
	return r
}

func TestGateRefusesEveryWorkflowForAnUnservedCluster(t *testing.T) {
	r := registered()
	require.Len(t, r.workflows, 7, "the contract's workflows")
	wfCtx := reflect.TypeFor[workflow.Context]()
	for name, fn := range r.workflows {
		t.Run(name, func(t *testing.T) {
			types := inputs(t, name, reflect.TypeOf(fn), wfCtx)
			for _, cluster := range []string{unserved, served} {
				env := workflowtest.Suite().NewTestWorkflowEnvironment()
				env.SetWorkerOptions(gateOptions(t))
				Assemble(Parts{}).Register(env)
				env.ExecuteWorkflow(name, argsFor(t, name, types, cluster)...)
				err := env.GetWorkflowError()
				if cluster == unserved {
					require.Error(t, err, "%s for %s", name, cluster)
					assert.Contains(t, err.Error(), "tenant gate")
					assert.Contains(t, err.Error(), "not served")
					continue
				}
				if err != nil {
					assert.NotContains(t, err.Error(), "tenant gate", "the gate admits a served cluster")
				}
			}
		})
	}
}

func TestGateRefusesEveryActivityForAnUnservedCluster(t *testing.T) {
	r := registered()
	n := 0
	for _, acts := range r.activities {
		typ := reflect.TypeOf(acts)
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			n++
			t.Run(m.Name, func(t *testing.T) {
				// The method's type has the receiver first.
				types := inputs(t, m.Name, m.Func.Type(), typ)
				types = types[1:]
				require.NotEmpty(t, types, "%s takes no input: it cannot say which cluster it touches", m.Name)
				for _, cluster := range []string{unserved, served} {
					env := workflowtest.Suite().NewTestActivityEnvironment()
					env.SetWorkerOptions(gateOptions(t))
					env.RegisterActivity(acts)
					_, err := env.ExecuteActivity(m.Name, argsFor(t, m.Name, types, cluster)...)
					if cluster == unserved {
						require.Error(t, err, "%s for %s", m.Name, cluster)
						assert.Contains(t, err.Error(), "tenant gate")
						assert.Contains(t, err.Error(), "not served")
						continue
					}
					if err != nil {
						assert.NotContains(t, err.Error(), "tenant gate", "the gate admits a served cluster")
					}
				}
			})
		}
	}
	assert.GreaterOrEqual(t, n, 18, "every activity of both structs was enumerated")
}

// A Reconcile whose carry names another cluster's job is refused, whatever
// cluster the run itself names (issue 22, finding 5).
func TestGateRefusesACarryOfAnotherCluster(t *testing.T) {
	req := contract.NewReconcileRequest(served)
	req.Carry = &contract.ReconcileCarry{Jobs: []stores.JobID{jobOf(unserved)}}
	err := activities.Gate{Layout: mustLayout(t)}.Admit([]any{req})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"c2" is not served`)
}

func mustLayout(t *testing.T) blobstate.Layout {
	l, err := blobstate.ParseLayout(served + "=" + served)
	require.NoError(t, err)
	return l
}
