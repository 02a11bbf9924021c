// Package invariants judges what a run of the checkpoint finalizer
// observed against what its HA store and its state bucket hold: the
// design's invariants I1-I5 and I7 (docs/design.md; I6 is the replays',
// which the run makes), each check in the words of a finding.
//
// A Judge reads the store and the bucket on paths no fault touches and
// takes the rest from what was observed: each finalization's request and
// how it ended (Finalization), each claim's restore point (Restore), and
// the run's retirements and reconciler reports when it had any. Per job
// CheckJob checks every published reference (I1) and retention (I5); per
// finalization CheckFinalization checks I4, I2 and I7; CheckAtRest checks
// I3 over a listing of the bucket, state kept by design counted apart;
// JudgeRestores checks every claim's restore point; Leftovers says what
// settling still has to do. The fault harness's own run
// (tools/faultharness) and its Check for runs outside it judge through
// the same Judge; nothing here knows of the world a run breaks.
package invariants
