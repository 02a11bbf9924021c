package workflows

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
	// above both; the fault harness runs at tens of seconds.
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
	// Grace: only handles older than this can be orphans. Taken as given:
	// 0 (or absent) means no grace (the finalization must still be closed).
	// JSON: a duration string ("1h"); see Duration.
	Grace Duration `json:"grace"`
	// TombstoneTTL: tombstones older than this (and at or below the
	// watermark) are collected. At least MinTombstoneTTL. JSON: a duration
	// string ("24h").
	TombstoneTTL Duration `json:"tombstoneTtl"`
	// ReportLimit caps each list of the report; 0 is DefaultReportLimit.
	ReportLimit int `json:"reportLimit,omitempty"`
	// Carry is set by the workflow itself when it continues as new.
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

func (r ReconcileRequest) reportLimit() int {
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
