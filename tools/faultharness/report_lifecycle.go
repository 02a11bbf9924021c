package faultharness

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// Lifecycle is what a run did around finalization itself: jobs retired
// and their IDs reused, adversarial requests, the reconciler's passes and
// the continuous check of every live reference.
type Lifecycle struct {
	// Retirements of the random phase: Retained kept the checkpoints for
	// the operator (the default), Discarding asked the reconciler to
	// discard them (DiscardCheckpoints).
	Retirements int `json:"retirements"`
	Retained    int `json:"retained"`
	Discarding  int `json:"discarding"`
	// InFlightAtRetirement counts the job's finalizations still running
	// when it was retired.
	InFlightAtRetirement int `json:"inFlightAtRetirement"`
	// ReusedIDs: a retired job claimed again above its old epochs:
	// forgotten by the reconciler first, checkpoint IDs restarting at 1,
	// or, its checkpoints retained, resubmitted at once, checkpoint IDs
	// continuing above the old ones.
	ReusedIDs int `json:"reusedIds"`
	// StaleClaimsRejected: claims of a reused ID at or below the old
	// incarnation's last epoch, Rejected (stale epoch) as they must be.
	StaleClaimsRejected int `json:"staleClaimsRejected"`
	// ForgetWaitMax and ForgetWaitTotal: from Retire's return until the
	// store no longer held the job as retired.
	ForgetWaitMax   time.Duration `json:"forgetWaitMax"`
	ForgetWaitTotal time.Duration `json:"forgetWaitTotal"`
	// Stuck: retired jobs never forgotten within the wait (a violation).
	Stuck int `json:"stuck"`

	// RestorePoints counts the claims' restore points by state;
	// RestoreJudged counts the Published finalizations of an older epoch
	// each was checked against (none may lie above it).
	RestorePoints map[string]int `json:"restorePoints"`
	RestoreJudged int            `json:"restoreJudged"`

	Reconciler ReconcilerPasses `json:"reconciler"`
	// Adversarial counts the adversarial requests by kind and by how each
	// ended.
	Adversarial map[AdversarialKind]map[string]int `json:"adversarial"`
	Continuous  ContinuousCheck                    `json:"continuous"`

	// RetainedAtRest: checkpoints of retained retirements whose state is
	// in the bucket at the end: reported, never counted as a leak (I3).
	RetainedAtRest int `json:"retainedAtRest"`
	// ReportedAtRest: unreferenced state the reconciler reported and kept
	// (a previous incarnation's, or no finalization found): reported as
	// an orphan, which I3 allows.
	ReportedAtRest int `json:"reportedAtRest"`
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

// countAdversarial records how one adversarial request ended.
func (l *Lifecycle) countAdversarial(kind AdversarialKind, outcome string) {
	if l.Adversarial == nil {
		l.Adversarial = map[AdversarialKind]map[string]int{}
	}
	if l.Adversarial[kind] == nil {
		l.Adversarial[kind] = map[string]int{}
	}
	l.Adversarial[kind][outcome]++
}

// AdversarialTotal counts the adversarial requests sent.
func (l *Lifecycle) AdversarialTotal() int {
	n := 0
	for _, outcomes := range l.Adversarial {
		for _, c := range outcomes {
			n += c
		}
	}
	return n
}

// writeText prints the lifecycle section of the report.
func (l *Lifecycle) writeText(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("job lifecycle:")
	p("  retirements: %d (%d retained, %d discarding), %d finalization(s) in flight at retirement",
		l.Retirements, l.Retained, l.Discarding, l.InFlightAtRetirement)
	avg := time.Duration(0)
	if l.Discarding > 0 {
		avg = l.ForgetWaitTotal / time.Duration(l.Discarding)
	}
	p("  reused job IDs: %d (claimed above the old epochs: forgotten first, checkpoints from 1; retained, resubmitted at once); %d stale claims of a reused ID rejected; %d never forgotten",
		l.ReusedIDs, l.StaleClaimsRejected, l.Stuck)
	p("  discarding retirements until forgotten: %s on average, %s at most", avg.Round(time.Millisecond), l.ForgetWaitMax.Round(time.Millisecond))
	p("  restore points answered by claims: %d resolved, %d none, %d dangling; judged against %d Published finalizations of older epochs",
		l.RestorePoints["resolved"], l.RestorePoints["none"], l.RestorePoints["dangling"], l.RestoreJudged)
	rc := l.Reconciler
	p("  reconciler passes (apply, dangling quarantined): %d (%d failed); found %d dangling, %d quarantined, %d orphans (%d kept), %d discarded, %d tombstones collected, %d item errors",
		rc.Passes, rc.Failed, rc.Dangling, rc.Quarantined, rc.Orphans, rc.Kept, rc.Discarded, rc.TombstonesCollected, rc.Errors)
	p("  adversarial requests: %d", l.AdversarialTotal())
	for _, k := range AdversarialKinds {
		outcomes := l.Adversarial[k]
		if len(outcomes) == 0 {
			continue
		}
		names := make([]string, 0, len(outcomes))
		for o := range outcomes {
			names = append(names, o)
		}
		slices.Sort(names)
		line := ""
		for _, o := range names {
			line += fmt.Sprintf(" %s %d", o, outcomes[o])
		}
		p("    %-22s%s", k, line)
	}
	c := l.Continuous
	p("  continuous I1/I2 check: %d rounds, %d references sampled, %d misses at first look (%d cleared on re-read), %d violations, %d failed reads",
		c.Rounds, c.References, c.Misses, c.Cleared, c.Violations, c.ReadErrors)
	p("  at rest at the end: %d retained checkpoint(s) (reported, not a leak), %d reported by the reconciler as kept",
		l.RetainedAtRest, l.ReportedAtRest)
}
