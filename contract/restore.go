package contract

import (
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// RestoreState says what a job manager can recover from.
type RestoreState string

const (
	// RestoreNone: the job has no published reference; start from scratch
	// (or from a savepoint the operator names).
	RestoreNone RestoreState = "none"
	// RestoreResolved: Latest is the newest published reference and its
	// handle and metadata resolve; recover from it.
	RestoreResolved RestoreState = "resolved"
	// RestoreDangling: the newest published reference does not resolve
	// (Dangling says why); Fallback, when set, is the newest one that does.
	// The caller decides: Flink would fail recovering from Latest.
	RestoreDangling RestoreState = "dangling"
)

// RestorePoint is the job's newest published reference, read linearizably
// after the call started, and whether it resolves.
type RestorePoint struct {
	Cluster string `json:"cluster"`
	Job     string `json:"job"`
	// Epoch is the job's standing epoch when the references were read
	// (0 when never claimed).
	Epoch uint64 `json:"epoch"`
	// Watermark is the job's subsumption watermark when the references
	// were read: no checkpoint at or below it is ever published again, so a
	// job manager takes its checkpoint IDs above it (a job resubmitted
	// under its ID from scratch, whose old incarnation published up to it).
	Watermark uint64       `json:"watermark,omitempty"`
	State     RestoreState `json:"state"`
	// Latest is the newest published reference (State resolved or dangling).
	Latest *RestoreCheckpoint `json:"latest,omitempty"`
	// Dangling is why Latest does not resolve: one of the Problem constants.
	Dangling string `json:"dangling,omitempty"`
	// Fallback is the newest reference older than Latest that resolves,
	// when Latest dangles and one does.
	Fallback *RestoreCheckpoint `json:"fallback,omitempty"`
}

// RestoreCheckpoint is one published checkpoint a job manager may recover
// from. Handle fields are empty when the handle itself could not be read.
type RestoreCheckpoint struct {
	Checkpoint uint64 `json:"checkpoint"`
	// Epoch is the epoch of the job manager that took the checkpoint.
	Epoch          uint64 `json:"epoch,omitempty"`
	MetadataKey    string `json:"metadataKey,omitempty"`
	MetadataSHA256 string `json:"metadataSha256,omitempty"`
	// ExclusivePrefix is the checkpoint's own directory in the bucket.
	ExclusivePrefix string `json:"exclusivePrefix,omitempty"`
	Savepoint       bool   `json:"savepoint,omitempty"`
	// HandleKey is the bucket key of the state handle the reference names.
	HandleKey string `json:"handleKey"`
	// RestorePath is the metadata file's URL in the state bucket, what
	// Flink's `-s` / execution.savepoint.path takes ("s3://b/c1/j1/chk-7/_metadata").
	RestorePath string `json:"restorePath,omitempty"`
}

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

// Clusters is the cluster the read touches (the worker's tenant gate).
func (r LatestRequest) Clusters() []string { return []string{r.Cluster} }
