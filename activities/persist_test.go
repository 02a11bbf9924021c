package activities_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/workflowtest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// readCounting counts the metadata reads the persist makes.
type readCounting struct {
	*blobstate.Store
	reads int
}

func (s *readCounting) CheckData(ctx context.Context, h blobstate.Handle) error {
	s.reads++
	return s.Store.CheckData(ctx, h)
}

// Issue 22, finding 6: a c1 savepoint naming c2's checkpoint as its
// metadata, with a zero checksum, on a worker serving c1 alone. At
// b0bb845 the persist read c2's metadata and failed with a message
// printing its real SHA-256; resubmitted with it, the savepoint was
// published and c1's claim answered c2's checkpoint. Now it is refused
// before anything is read, naming the field and the directories it may
// lie in, and nothing is written.
func TestPersistRefusesASavepointNamingAnotherClustersCheckpoint(t *testing.T) {
	w := workflowtest.NewWorld(t)
	c2, err := w.Bucket.WriteCheckpoint(stores.JobID{Cluster: "c2", Job: "j1"}, 1, 5, false)
	require.NoError(t, err)
	layout, err := blobstate.ParseLayout("c1=c1")
	require.NoError(t, err)
	states := &readCounting{Store: w.States}
	env := workflowtest.Suite().NewTestActivityEnvironment()
	env.RegisterActivity(&activities.Activities{References: w.Refs, Leadership: w.Inner, States: states, Layout: layout})

	req := contract.FinalizeRequest{
		Cluster: "c1", Job: "j1", Epoch: 1, Checkpoint: 9, Savepoint: true,
		MetadataKey: c2.MetadataKey, MetadataSHA256: "0000000000000000000000000000000000000000000000000000000000000000",
	}
	_, err = env.ExecuteActivity("PersistHandle", activities.HandleOf(req))
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "%v", err)
	assert.NotContains(t, app.Error(), c2.MetadataSHA256, "no digest of c2's object")
	assert.Equal(t, contract.TypeInvalid, app.Type(), app.Error())
	assert.True(t, app.NonRetryable())
	assert.Contains(t, app.Error(), "metadataKey")
	assert.Contains(t, app.Error(), `"c1/j1/chk-9/"`)
	assert.Zero(t, states.reads, "nothing read")
	assert.False(t, w.Exists(activities.HandleOf(req).Key()), "nothing written")
}

// A savepoint reference published before the layout knew savepoints
// directories, its handle naming c2's checkpoint: c1's restore point
// answers something else, and reads nothing of c2's to find out (at
// b0bb845 it read c2's metadata first and judged the layout after).
func TestRestorePointReadsNoForeignMetadata(t *testing.T) {
	w := workflowtest.NewWorld(t)
	c2, err := w.Bucket.WriteCheckpoint(stores.JobID{Cluster: "c2", Job: "j1"}, 1, 5, false)
	require.NoError(t, err)
	own := workflowtest.PublishAs(t, w.Bucket, w.States, w.Inner, 1, 8)
	foreign := contract.FinalizeRequest{
		Cluster: "c1", Job: "j1", Epoch: 1, Checkpoint: 9, Savepoint: true,
		MetadataKey: c2.MetadataKey, MetadataSHA256: c2.MetadataSHA256,
	}
	key, err := w.States.Write(t.Context(), activities.HandleOf(foreign))
	require.NoError(t, err)
	require.NoError(t, w.Inner.Publish(t.Context(), stores.Publication{
		CheckpointID: foreign.CheckpointID(), Epoch: 1,
		Reference: stores.Reference{Handle: key, Token: foreign.Token(), Attempt: 1, Savepoint: true},
	}))
	layout, err := blobstate.ParseLayout("c1=c1")
	require.NoError(t, err)
	states := &readCounting{Store: w.States}
	env := workflowtest.Suite().NewTestActivityEnvironment()
	env.RegisterActivity(&activities.Activities{References: w.Refs, Leadership: w.Inner, States: states, Layout: layout})

	v, err := env.ExecuteActivity("RestorePoint", activities.RestoreInput{JobID: workflowtest.Job})
	require.NoError(t, err)
	var rp contract.RestorePoint
	require.NoError(t, v.Get(&rp))
	assert.Equal(t, 1, states.reads, "only checkpoint 8's metadata is read")
	assert.Equal(t, contract.RestoreDangling, rp.State)
	assert.Equal(t, contract.ProblemHandleForeign, rp.Dangling)
	require.NotNil(t, rp.Fallback)
	assert.Equal(t, own.Checkpoint, rp.Fallback.Checkpoint)
}
