package workflows

import (
	"time"
)

// Phases of a reconcile run, as its status query reports them.
const (
	ReconcileListing     = "Listing"
	ReconcileReconciling = "Reconciling"
	ReconcileDone        = "Done"
)

// Actions a finding reports. In a dry run the "would" ones stand for what
// an applied run would do.
const (
	ActionReported        = "reported"
	ActionWouldQuarantine = "would quarantine"
	ActionQuarantined     = "quarantined"
	ActionResolves        = "left alone: resolves again"
	ActionWouldDiscard    = "would discard"
	ActionDiscarded       = "discarded"
	ActionWouldCollect    = "would collect"
	ActionCollected       = "collected"
	// ActionKeptPrefix starts the action of an orphan whose state stays.
	ActionKeptPrefix = "kept: "
)

// Reasons to keep an orphan's state that only the workflow knows.
const (
	KeepAbandoned      = "finalization abandoned by an operator"
	KeepNoFinalization = "no finalization of this identity found (history expired?)"
)

// ReconcileReport is the result and the status of Reconcile.
type ReconcileReport struct {
	Cluster string `json:"cluster"`
	// DryRun: nothing was changed; the actions say what would be done.
	DryRun             bool `json:"dryRun"`
	QuarantineDangling bool `json:"quarantineDangling,omitempty"`
	// Now is the run's reference time; both cutoffs derive from it.
	Now             time.Time `json:"now"`
	GraceCutoff     time.Time `json:"graceCutoff"`
	TombstoneCutoff time.Time `json:"tombstoneCutoff"`
	Phase           string    `json:"phase"`
	// Job is the job being reconciled.
	Job    string          `json:"job,omitempty"`
	Counts ReconcileCounts `json:"counts"`

	// The lists are capped (ReportLimit each); Truncated says one was.
	Dangling            []DanglingFinding  `json:"dangling"`
	Orphans             []OrphanFinding    `json:"orphans"`
	Discarded           []string           `json:"discarded"`
	Quarantined         []string           `json:"quarantined"`
	TombstonesCollected []TombstoneFinding `json:"tombstonesCollected"`
	Errors              []string           `json:"errors"`
	Truncated           bool               `json:"truncated,omitempty"`
}

// ReconcileCounts are complete, whatever the lists' caps.
type ReconcileCounts struct {
	Jobs       int `json:"jobs"`
	References int `json:"references"`
	Dangling   int `json:"dangling"`
	// Quarantined dangling references (0 in a dry run).
	Quarantined int `json:"quarantined"`
	// Orphans found, kept ones included.
	Orphans   int `json:"orphans"`
	Kept      int `json:"kept"`
	Discarded int `json:"discarded"`
	// InFlight: unreferenced handles younger than the grace period or whose
	// finalization runs; not orphans (yet).
	InFlight int `json:"inFlight"`
	// Tombstones past the TTL at or below the watermark.
	Tombstones          int `json:"tombstones"`
	TombstonesCollected int `json:"tombstonesCollected"`
	// Foreign: keys under handles/ that are not handle keys.
	Foreign int `json:"foreign"`
	Errors  int `json:"errors"`
}

// DanglingFinding is a published reference whose handle or data is gone.
type DanglingFinding struct {
	Checkpoint string `json:"checkpoint"`
	HandleKey  string `json:"handleKey"`
	Token      string `json:"token"`
	Savepoint  bool   `json:"savepoint,omitempty"`
	Problem    string `json:"problem"`
	Action     string `json:"action"`
}

// OrphanFinding is a handle blob without a published reference of its
// token, old enough, and what became of it.
type OrphanFinding struct {
	HandleKey  string `json:"handleKey"`
	Checkpoint string `json:"checkpoint"`
	Epoch      uint64 `json:"epoch"`
	WorkflowID string `json:"workflowId"`
	// Finalization is how its finalization stands ("Completed/Published",
	// "Terminated", "not found"), empty when not asked.
	Finalization string    `json:"finalization,omitempty"`
	ModTime      time.Time `json:"modTime,omitzero"`
	Savepoint    bool      `json:"savepoint,omitempty"`
	Action       string    `json:"action"`
}

// TombstoneFinding is one job's collectable tombstones.
type TombstoneFinding struct {
	Job string `json:"job"`
	// Checkpoints past the TTL at or below the watermark when inventoried.
	Checkpoints []uint64 `json:"checkpoints"`
	// Collected is how many went (0 in a dry run).
	Collected int    `json:"collected"`
	Action    string `json:"action"`
}

// capped appends v unless the list is full, and says whether it fitted.
func capped[T any](list *[]T, v T, limit int) bool {
	if len(*list) >= limit {
		return false
	}
	*list = append(*list, v)
	return true
}
