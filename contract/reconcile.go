package contract

import (
	"cmp"
	"encoding/json"
	"fmt"
	"time"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Reconciler defaults and bounds.
const (
	// DefaultReconcileGrace: a handle younger than this may belong to a
	// finalization between persisting and publishing.
	DefaultReconcileGrace = time.Hour
	// DefaultTombstoneTTL: tombstones younger than this are kept.
	DefaultTombstoneTTL = 24 * time.Hour
	// MinTombstoneTTL is the shortest TTL accepted. No store write depends
	// on a tombstone's age: every write is conditional on the versions it
	// read (a job node, a ConfigMap's resourceVersion, one transaction), a
	// collected key stays below the watermark, and a forgotten job's epochs
	// continue above the old ones. What the TTL bounds is how long a
	// tombstone can still answer for its token: a discard's window between
	// its fence and its delete (one activity attempt; each attempt fences
	// again), and a fast-path task retried after its worker died, which asks
	// whether its lost run published (a subsumed checkpoint whose tombstone
	// is gone reads as never published: Failed). The default (24h) keeps far
	// above both. A request's TTL is only an upper bound: each worker
	// applies its own floor (-reconcile-min-tombstone-ttl, default 1h, at
	// least this) from its own clock, whatever a request or a carried
	// report says; the fault harness configures its workers at tens of
	// seconds.
	MinTombstoneTTL = time.Second
	// DefaultReportLimit caps each list of a ReconcileReport; the counts
	// are always complete.
	DefaultReportLimit = 100
)

// ReconcileRequest is the input of Reconcile.
type ReconcileRequest struct {
	Cluster string `json:"cluster"`
	// Apply performs the destructive actions. Without it the run is a dry
	// run: the report lists what would be done and nothing changes.
	Apply bool `json:"apply,omitempty"`
	// QuarantineDangling tombstones dangling references (with Apply), after
	// confirming once more that their handle or data is gone. Without it
	// they are only reported.
	QuarantineDangling bool `json:"quarantineDangling,omitempty"`
	// Grace: only handles older than this can be orphans. 0 (or absent)
	// asks for no grace, but each worker applies its own floor
	// (-reconcile-min-grace, default 15m) whatever the request says.
	// JSON: a duration string ("1h"); see Duration.
	Grace Duration `json:"grace"`
	// TombstoneTTL: tombstones older than this (and at or below the
	// watermark) are collected. At least MinTombstoneTTL. JSON: a duration
	// string ("24h").
	TombstoneTTL Duration `json:"tombstoneTtl"`
	// ReportLimit caps each list of the report; 0 is DefaultReportLimit.
	ReportLimit int `json:"reportLimit,omitempty"`
	// Carry is set by the workflow itself when it continues as new, and
	// accepted only in such a continued run, its jobs all of Cluster: a
	// started run that carries one fails as Rejected.Invalid.
	Carry *ReconcileCarry `json:"carry,omitempty"`

	// decodeErr is a duration UnmarshalJSON could not read: Validate
	// reports it, so the run fails as Rejected.Invalid like any invalid
	// request, rather than on decoding its input.
	decodeErr error
}

// NewReconcileRequest is a dry run of cluster with the default grace and TTL.
func NewReconcileRequest(cluster string) ReconcileRequest {
	return ReconcileRequest{Cluster: cluster, Grace: Duration(DefaultReconcileGrace), TombstoneTTL: Duration(DefaultTombstoneTTL)}
}

// UnmarshalJSON reads the request as encoding/json does, except that a
// duration it cannot read (malformed, negative) is left for Validate to
// report, naming the field: a decode error would fail the run before its
// validation, not as Rejected.Invalid.
func (r *ReconcileRequest) UnmarshalJSON(b []byte) error {
	type fields ReconcileRequest // the same fields, without this method
	var in struct {
		fields
		// Shadow the Durations: each is read, and named, below.
		Grace        json.RawMessage `json:"grace"`
		TombstoneTTL json.RawMessage `json:"tombstoneTtl"`
	}
	in.fields = fields(*r)
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	in.decodeErr = cmp.Or(
		decodeDuration("grace", in.Grace, &in.fields.Grace),
		decodeDuration("tombstoneTtl", in.TombstoneTTL, &in.fields.TombstoneTTL))
	*r = ReconcileRequest(in.fields)
	return nil
}

// Validate checks the request; an invalid one fails the workflow at once.
func (r ReconcileRequest) Validate() error {
	if err := stores.ValidateCluster(r.Cluster); err != nil {
		return err
	}
	switch {
	case r.decodeErr != nil:
		return r.decodeErr
	case r.Grace < 0:
		return &stores.InvalidError{Field: "grace", Rule: fmt.Sprintf("must not be negative, got %s", r.Grace)}
	case r.TombstoneTTL < Duration(MinTombstoneTTL):
		return &stores.InvalidError{Field: "tombstoneTtl", Rule: fmt.Sprintf("must be at least %s, got %s", MinTombstoneTTL, r.TombstoneTTL)}
	case r.ReportLimit < 0:
		return &stores.InvalidError{Field: "reportLimit", Rule: "must not be negative"}
	}
	return nil
}

// ListLimit is each list's cap in the report: ReportLimit, or
// DefaultReportLimit when the request names none.
func (r ReconcileRequest) ListLimit() int {
	if r.ReportLimit == 0 {
		return DefaultReportLimit
	}
	return r.ReportLimit
}

// ReconcileScheduleID is the ID of the cluster's reconcile schedule; the
// runs it starts carry it as their workflow ID's prefix.
func ReconcileScheduleID(cluster string) string { return "reconcile/" + cluster }

// ReconcileCarry is what a run hands to its continuation.
type ReconcileCarry struct {
	Report ReconcileReport `json:"report"`
	// Jobs are the jobs left to reconcile.
	Jobs []stores.JobID `json:"jobs"`
}

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
	// ActionPendingPrefix starts the action of an orphan whose state its
	// job's discarding retirement let go within the grace: its retirement
	// discards it once its finalization has closed, else a run past the
	// grace does.
	ActionPendingPrefix = "pending discard: "
)

// KeepAbandoned is why an orphan's state stays that only the workflow
// knows: its finalization says an operator abandoned it.
const KeepAbandoned = "finalization abandoned by an operator"

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

// What makes a reference dangling: recovery from it would fail with
// "Could not retrieve checkpoint ... from state handle".
const (
	ProblemHandleMissing    = "handle missing"
	ProblemHandleCorrupt    = "handle corrupt"
	ProblemHandleKeyInvalid = "handle key invalid"
	ProblemDataMissing      = "metadata missing"
	ProblemDataCorrupt      = "metadata checksum mismatch"
	// ProblemHandleForeign: the handle names another checkpoint, or data
	// outside the checkpoint's directory in the worker's layout.
	ProblemHandleForeign = "handle names another checkpoint's data"
)

// Clusters are the clusters the run touches: its own and, in a
// continued run, every carried job's (the worker's tenant gate refuses a
// carry naming another cluster's job).
func (r ReconcileRequest) Clusters() []string {
	clusters := []string{r.Cluster}
	if r.Carry != nil {
		for _, j := range r.Carry.Jobs {
			clusters = append(clusters, j.Cluster)
		}
	}
	return clusters
}
