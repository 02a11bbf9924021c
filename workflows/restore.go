package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// The restore point answers ClaimEpoch and LatestCheckpoint; see
// activities.RestorePoint for its fields.
type (
	RestorePoint      = activities.RestorePoint
	RestoreCheckpoint = activities.RestoreCheckpoint
	RestoreState      = activities.RestoreState
)

// What a job manager can recover from.
const (
	RestoreNone     = activities.RestoreNone
	RestoreResolved = activities.RestoreResolved
	RestoreDangling = activities.RestoreDangling
)

// LatestRequest is the input of LatestCheckpoint: a read-only question
// about one job, for tools and operators.
type LatestRequest struct {
	Cluster string `json:"cluster"`
	Job     string `json:"job"`
}

// JobID is the job the request names.
func (r LatestRequest) JobID() stores.JobID { return stores.JobID{Cluster: r.Cluster, Job: r.Job} }

// WorkflowID names one read; nonce makes it unique, so that a read never
// attaches to an earlier one whose answer may predate the caller's question.
func (r LatestRequest) WorkflowID(nonce string) string {
	return fmt.Sprintf("latest/%s/%s/%s", r.Cluster, r.Job, nonce)
}

// LatestCheckpoint answers the job's restore point without claiming
// anything. It is a workflow, not a query or an update: reading the store
// is I/O, which a query handler may not do, and no long-lived execution
// per job exists to carry an update (a job's coordinator runs only while
// it has finalizations). A short workflow also leaves the read in the
// history, visible in the Web UI.
func LatestCheckpoint(ctx workflow.Context, req LatestRequest) (RestorePoint, error) {
	var rp RestorePoint
	err := storeCall.execute(ctx, false, a.RestorePoint, activities.RestoreInput{JobID: req.JobID()}).Get(ctx, &rp)
	return rp, err
}

// restoreVersion: claims started before ClaimEpoch answered the restore
// point replay without reading it.
const restoreVersion = "claim-restore-point"

// restorePoint reads the restore point once the claim stands; the read
// refuses a claim a newer one replaced meanwhile.
func restorePoint(ctx workflow.Context, req ClaimRequest) (RestorePoint, error) {
	if workflow.GetVersion(ctx, restoreVersion, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return RestorePoint{}, nil
	}
	in := activities.RestoreInput{JobID: stores.JobID{Cluster: req.Cluster, Job: req.Job}, Epoch: req.Epoch, Owner: req.Owner}
	var rp RestorePoint
	err := storeCall.execute(ctx, false, a.RestorePoint, in).Get(ctx, &rp)
	return rp, err
}
