package activities

import (
	"context"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// References is the part of the HA store the activities use.
type References interface {
	Publish(ctx context.Context, p stores.Publication) error
	Verify(ctx context.Context, id stores.CheckpointID, token string, attempt uint32) (stores.Verdict, error)
	Subsume(ctx context.Context, id stores.CheckpointID, epoch uint64) error
	CollectSubsumed(ctx context.Context, id stores.CheckpointID, token string) error
	List(ctx context.Context, job stores.JobID) ([]stores.Entry, error)
	ListEntries(ctx context.Context, job stores.JobID) ([]stores.Entry, error)
	Read(ctx context.Context, id stores.CheckpointID) (stores.Entry, error)
	ReadJob(ctx context.Context, job stores.JobID) (stores.JobState, error)
}

// States is the part of the blob state store the activities use.
type States interface {
	CheckData(ctx context.Context, h blobstate.Handle) error
	Write(ctx context.Context, h blobstate.Handle) (string, error)
	ReadKey(ctx context.Context, key string) (blobstate.Handle, error)
	ListJobHandles(ctx context.Context, job stores.JobID) (blobstate.Listing, error)
	Mark(ctx context.Context, handleKey string) (blobstate.KeepMark, bool, error)
	Keep(ctx context.Context, handleKey, reason string, now time.Time) error
	Discard(ctx context.Context, h blobstate.Handle) (blobstate.DiscardResult, error)
	// ObjectURL names an object for tools outside the worker (Flink's restore path).
	ObjectURL(key string) string
}

// Signaller starts a workflow or signals it if it runs: the part of the
// Temporal client the report activity uses.
type Signaller interface {
	SignalWithStartWorkflow(ctx context.Context, workflowID, signalName string, signalArg any,
		options client.StartWorkflowOptions, workflow any, workflowArgs ...any) (client.WorkflowRun, error)
}

// Activities is registered with the worker; its methods are the
// finalizer's activities (finalization, retention, leadership). The
// reconciler's are activities/reconcile's, registered beside them.
type Activities struct {
	References References
	Leadership Leadership
	States     States
	// Layout is where each served cluster keeps its checkpoints: requests
	// and handles are checked against it, never trusted.
	Layout blobstate.Layout
	// StoreKind names the HA store backend, for visibility.
	StoreKind string
	// Temporal signals the per-job coordinator.
	Temporal  Signaller
	TaskQueue string
	// Finalizations says whether a finalization has closed, so that its
	// subsumed tombstone can be collected (RemoveCheckpoints); nil leaves
	// every tombstone to the reconciler's collection.
	Finalizations Finalizations
	// Handles lists a job's handle blobs, for a discarding retirement's
	// discard (DiscardRetired); nil, like a nil Finalizations, leaves that
	// state to the reconciler.
	Handles HandleLister
	// Retain is how many references per job retention keeps (savepoints
	// count; the newest non-savepoint is kept on top). 0 keeps everything.
	Retain int
	// Retention takes the job of every reference published, for the
	// worker's background retention pass (DrainRetention); nil: retention
	// runs only in the job's coordinator.
	Retention RetentionQueue
}
