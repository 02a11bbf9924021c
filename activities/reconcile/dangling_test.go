package reconcile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/checkpoint-finalizer/finalizer/activities"
	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/workflowtest"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// QuarantineDangling tombstones a reference only while it still does not
// resolve and the key still holds its token: a reference that resolves
// again stays as it is, one whose handle is gone becomes a quarantined
// tombstone of its token (the problem named), and one the key no longer
// holds is refused for good, nothing written.
func TestQuarantineDangling(t *testing.T) {
	job := workflowtest.Job
	cases := []struct {
		name string
		// prepare publishes checkpoint 1 and breaks (or not) its reference.
		prepare     func(t *testing.T, w world, req contract.FinalizeRequest)
		resolves    bool
		quarantined bool
		rejected    bool
	}{
		{"a reference that resolves", func(*testing.T, world, contract.FinalizeRequest) {}, true, false, false},
		{"a handle gone", func(t *testing.T, w world, req contract.FinalizeRequest) {
			require.NoError(t, os.Remove(filepath.Join(w.Bucket.Dir, activities.HandleOf(req).Key())))
		}, false, true, false},
		{"a handle gone and the reference subsumed since", func(t *testing.T, w world, req contract.FinalizeRequest) {
			require.NoError(t, os.Remove(filepath.Join(w.Bucket.Dir, activities.HandleOf(req).Key())))
			require.NoError(t, w.Inner.Subsume(t.Context(), req.CheckpointID(), 1))
		}, false, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			req := w.publish(t, job, 1)
			c.prepare(t, w, req)
			before := w.Entry(1)
			v, err := w.runValue(t, "QuarantineDangling", reconcileacts.QuarantineInput{
				CheckpointID: req.CheckpointID(), Token: req.Token(), HandleKey: activities.HandleOf(req).Key(),
			})
			if c.rejected {
				var app *temporal.ApplicationError
				require.ErrorAs(t, err, &app)
				assert.True(t, app.NonRetryable())
				assert.Equal(t, before, w.Entry(1), "nothing written")
				return
			}
			require.NoError(t, err)
			var res reconcileacts.QuarantineResult
			require.NoError(t, v.Get(&res))
			assert.Equal(t, c.resolves, res.Resolves)
			assert.Equal(t, c.quarantined, res.Quarantined)
			if !c.quarantined {
				assert.Empty(t, res.Problem)
				assert.Equal(t, before, w.Entry(1), "nothing written")
				return
			}
			assert.NotEmpty(t, res.Problem)
			e := w.Entry(1)
			require.NotNil(t, e.Tombstone)
			assert.Equal(t, stores.ReasonQuarantined, e.Tombstone.Reason)
			assert.Equal(t, req.Token(), e.Tombstone.Token)
		})
	}
}

// runValue runs an activity behind the worker's tenant gate, as run does,
// and returns its result.
func (w world) runValue(t *testing.T, name string, in any) (converter.EncodedValue, error) {
	t.Helper()
	env := workflowtest.Suite().NewTestActivityEnvironment()
	env.SetWorkerOptions(sdkworker.Options{Interceptors: []interceptor.WorkerInterceptor{activities.Gate{Layout: w.acts.Layout}.Interceptor()}})
	env.RegisterActivity(w.acts)
	return env.ExecuteActivity(name, in)
}
