package faultharness

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"
)

// Report is what a run found.
type Report struct {
	Mode  string `json:"mode"` // "real" or "naive"
	Store string `json:"store"`
	Seed  int64  `json:"seed"`
	Jobs  int    `json:"jobs"`
	// Finalizations is K, the random phase's finalizations; Closing are the
	// ones each job takes after the faults healed.
	Finalizations int `json:"finalizations"`
	Closing       int `json:"closing"`
	Workers       int `json:"workers"` // worker processes, every store's
	Retain        int `json:"retain"`

	Targeted []Scenario `json:"targeted"`
	// Faults are the random phase's faults in the order injected.
	Faults []FaultRecord `json:"faults"`
	// Evidence counts traces of the faults outside the harness's own word
	// for it: ZooKeeper's logs, and the requests the S3 fault layer failed.
	Evidence map[string]int `json:"evidence,omitempty"`
	// Outcomes counts every finalization (targeted, random, closing) by its
	// final phase; "NotEnded" and "WorkflowFailed" are violations.
	Outcomes map[string]int `json:"outcomes"`
	// Violations of the invariants, by "I1".."I7", "lifecycle" (retire,
	// forget, reuse), "requests" (an adversarial request not refused as
	// the contract says) and "recovery".
	Violations []Violation `json:"violations"`
	Replays    Replays     `json:"replays"`
	Paths      Paths       `json:"paths"`
	Recovery   []Recovery  `json:"recovery"`
	// SavepointsKept is the savepoints whose state stays by design.
	SavepointsKept int `json:"savepointsKept"`
	// Lifecycle is what the run did around finalization: retirements,
	// reused IDs, adversarial requests, reconciler, continuous check.
	Lifecycle Lifecycle `json:"lifecycle"`

	// Converge runs from the moment every fault healed until every
	// finalization had ended; Settle until retention and discards were
	// done as well (closing checkpoints included).
	Converge time.Duration `json:"converge"`
	Settle   time.Duration `json:"settle"`
	Duration time.Duration `json:"duration"`
	// Missing lists fault kinds the issue names that this run could not inject.
	Missing []string `json:"missing"`
	// HarnessErrors are failures of the harness itself (a fault it could
	// not heal at once, a check it could not read); they are no verdict.
	HarnessErrors []string `json:"harnessErrors,omitempty"`
}

// Scenario is one targeted scenario's result.
type Scenario struct {
	Name string `json:"name"`
	// Hits counts the writes its fault hit.
	Hits    int    `json:"hits"`
	Outcome string `json:"outcome"`
	Detail  string `json:"detail"`
}

// FaultRecord is one injected fault.
type FaultRecord struct {
	Kind FaultKind `json:"kind"`
	// Hits is what it hit: writes for a dropped request or reply (0 when
	// none came by in time), 1 for the others when applied.
	Hits   int           `json:"hits"`
	Detail string        `json:"detail,omitempty"`
	Error  string        `json:"error,omitempty"`
	At     time.Duration `json:"at"` // since the random phase began
	Took   time.Duration `json:"took"`
}

// Violation is one broken invariant.
type Violation struct {
	Invariant string `json:"invariant"`
	Subject   string `json:"subject"`
	Detail    string `json:"detail"`
}

// Replays counts stale publish attempts replayed straight to the store.
type Replays struct {
	Performed int `json:"performed"`
	Rejected  int `json:"rejected"`
	// Landed: the replay was Published, a zombie write (I6).
	Landed int `json:"landed"`
	// Changed: the key's znode changed under a replay (I6).
	Changed int `json:"changed"`
}

// Recovery is one job's simulated recovery.
type Recovery struct {
	Job        string `json:"job"`
	Epoch      uint64 `json:"epoch"`
	Checkpoint uint64 `json:"checkpoint"`
	Error      string `json:"error,omitempty"`
}

// ViolationsBy counts the violations per invariant.
func (r *Report) ViolationsBy() map[string]int {
	m := map[string]int{}
	for _, v := range r.Violations {
		m[v.Invariant]++
	}
	return m
}

// FaultsBy counts injected faults and their hits per kind.
func (r *Report) FaultsBy() (injected, hits map[FaultKind]int) {
	injected, hits = map[FaultKind]int{}, map[FaultKind]int{}
	for _, f := range r.Faults {
		injected[f.Kind]++
		hits[f.Kind] += f.Hits
	}
	return injected, hits
}

// TotalFinalizations counts every finalization the run made.
func (r *Report) TotalFinalizations() int {
	n := 0
	for _, c := range r.Outcomes {
		n += c
	}
	return n
}

// maxListed bounds the violations printed one by one.
const maxListed = 25

// WriteText prints the report for a person.
func (r *Report) WriteText(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("fault harness report: mode %s, store %s, seed %d", r.Mode, r.Store, r.Seed)
	p("  %d jobs, %d worker processes, retain %d; %d finalizations in the random phase, %d targeted, %d closing; run took %s",
		r.Jobs, r.Workers, r.Retain, r.Finalizations, len(r.Targeted), r.Closing, r.Duration.Round(time.Second))
	p("")
	p("targeted scenarios:")
	for _, s := range r.Targeted {
		p("  %-22s hits %d  outcome %-10s %s", s.Name, s.Hits, s.Outcome, s.Detail)
	}
	p("")
	injected, hits := r.FaultsBy()
	total, totalHits := 0, 0
	p("faults injected (random phase), by kind:      injected   hit")
	for _, k := range AllKinds {
		if injected[k] == 0 {
			continue
		}
		p("  %-40s %8d %5d", k, injected[k], hits[k])
		total += injected[k]
		totalHits += hits[k]
	}
	p("  %-40s %8d %5d", "total", total, totalHits)
	for _, name := range sortedKeys(r.Evidence) {
		p("  server-side evidence: %s: %d", name, r.Evidence[name])
	}
	if errs := r.faultErrors(); len(errs) > 0 {
		p("  injection errors: %s", strings.Join(errs, "; "))
	}
	p("")
	p("finalizations by outcome:")
	for _, o := range sortedKeys(r.Outcomes) {
		p("  %-40s %8d", o, r.Outcomes[o])
	}
	p("  %-40s %8d", "total", r.TotalFinalizations())
	p("  of which savepoints (their data is kept by design): %d", r.SavepointsKept)
	if r.Mode == "real" {
		p("  protocol paths taken: %d verified after an Unknown, %d fenced Absent, %d published by a later attempt (%d status queries unanswered)",
			r.Paths.Verified, r.Paths.Fenced, r.Paths.Republished, r.Paths.Unqueried)
	}
	p("")
	p("stale attempts replayed after their fence: %d performed, %d rejected, %d landed, %d changed the key",
		r.Replays.Performed, r.Replays.Rejected, r.Replays.Landed, r.Replays.Changed)
	failed := 0
	for _, rc := range r.Recovery {
		if rc.Error != "" {
			failed++
		}
	}
	p("simulated recovery: %d jobs, %d failed", len(r.Recovery), failed)
	p("time to converge after the faults healed: %s (every finalization ended); %s (retention and discards settled)",
		r.Converge.Round(time.Millisecond), r.Settle.Round(time.Millisecond))
	p("")
	if r.Mode == "real" {
		r.Lifecycle.writeText(w)
		p("")
	}
	by := r.ViolationsBy()
	p("invariant violations: %d", len(r.Violations))
	for _, inv := range []string{"I1", "I2", "I3", "I4", "I5", "I6", "I7", "lifecycle", "requests", "recovery"} {
		p("  %-9s %d", inv, by[inv])
	}
	for i, v := range r.Violations {
		if i == maxListed {
			p("  ... %d more", len(r.Violations)-maxListed)
			break
		}
		p("  %s %s: %s", v.Invariant, v.Subject, v.Detail)
	}
	if len(r.Missing) > 0 {
		p("")
		p("fault kinds not injected by this harness:")
		for _, m := range r.Missing {
			p("  - %s", m)
		}
	}
	if len(r.HarnessErrors) > 0 {
		p("")
		p("harness errors (not a verdict):")
		for _, e := range r.HarnessErrors {
			p("  - %s", e)
		}
	}
}

func (r *Report) faultErrors() []string {
	var errs []string
	for _, f := range r.Faults {
		if f.Error != "" {
			errs = append(errs, string(f.Kind)+": "+f.Error)
		}
	}
	return errs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return slices.Clip(keys)
}
