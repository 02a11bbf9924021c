package faultharness

import (
	"fmt"
	"io"
)

// Lifecycle is what a run did around finalization itself: the
// reconciler's passes and the continuous check of every live reference.
type Lifecycle struct {
	Reconciler ReconcilerPasses `json:"reconciler"`
	Continuous ContinuousCheck  `json:"continuous"`
}

// ReconcilerPasses sums the reports of the reconciler's passes.
type ReconcilerPasses struct {
	// Passes ended with a report; Failed did not (the call or the run
	// failed, e.g. while Temporal restarted).
	Passes int `json:"passes"`
	Failed int `json:"failed"`
	// The reports' counts, summed over the passes.
	Dangling            int `json:"dangling"`
	Quarantined         int `json:"quarantined"`
	Orphans             int `json:"orphans"`
	Kept                int `json:"kept"`
	Discarded           int `json:"discarded"`
	TombstonesCollected int `json:"tombstonesCollected"`
	Errors              int `json:"errors"`
}

// ContinuousCheck counts the continuous I1/I2 check's work: every live
// reference sampled, its handle, metadata and data looked up.
type ContinuousCheck struct {
	Rounds     int `json:"rounds"`
	References int `json:"references"`
	// Misses found something missing at the first look; Cleared of those
	// no longer held the reference when its key was read again (subsumed,
	// retired or quarantined meanwhile: a legitimate discard); the others
	// are violations.
	Misses     int `json:"misses"`
	Cleared    int `json:"cleared"`
	Violations int `json:"violations"`
	// ReadErrors: lookups that failed (a store or bucket read under a
	// fault); the reference is sampled again next round.
	ReadErrors int `json:"readErrors"`
}

// writeText prints the lifecycle section of the report.
func (l *Lifecycle) writeText(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("job lifecycle:")
	rc := l.Reconciler
	p("  reconciler passes (apply, dangling quarantined): %d (%d failed); found %d dangling, %d quarantined, %d orphans (%d kept), %d discarded, %d tombstones collected, %d item errors",
		rc.Passes, rc.Failed, rc.Dangling, rc.Quarantined, rc.Orphans, rc.Kept, rc.Discarded, rc.TombstonesCollected, rc.Errors)
	c := l.Continuous
	p("  continuous I1/I2 check: %d rounds, %d references sampled, %d misses at first look (%d cleared on re-read), %d violations, %d failed reads",
		c.Rounds, c.References, c.Misses, c.Cleared, c.Violations, c.ReadErrors)
}
