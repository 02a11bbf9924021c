package stores

import (
	"fmt"
	"time"
)

// The decisions below are the store semantics, written once. Each takes the
// state a backend has just read and returns what to write (nil: nothing) or
// a definite rejection. A backend applies the write with one compare-and-set
// against the versions it read; if that fails it reads again and asks again.

// Publication is one publish attempt of a checkpoint's reference.
type Publication struct {
	CheckpointID
	// Epoch the publisher believes current; the write is conditional on it.
	Epoch uint64
	// Owner is the claimant of Epoch the publisher names; the write is
	// conditional on it too, so that a party naming the standing epoch
	// under another owner publishes nothing. Empty: decided on the epoch
	// alone (finalizations started before requests named their owner).
	Owner     string
	Reference Reference
}

// Validate checks every field of the publication.
func (p Publication) Validate() error {
	if err := p.CheckpointID.Validate(); err != nil {
		return err
	}
	if p.Epoch == 0 {
		return invalid("epoch", "must be at least 1")
	}
	if p.Owner != "" {
		if err := ValidateOwner(p.Owner); err != nil {
			return err
		}
	}
	return p.Reference.Validate()
}

// epochMismatch says why epoch is not the job's standing claim.
func epochMismatch(job JobState, epoch uint64) string {
	if job.Owner == "" {
		return fmt.Sprintf("epoch %d, job not claimed (epochs above %d may claim it)", epoch, job.Epoch)
	}
	return fmt.Sprintf("epoch %d, current %d", epoch, job.Epoch)
}

// ownerMismatch says why owner does not hold the job's standing epoch.
func ownerMismatch(job JobState, owner string) string {
	return fmt.Sprintf("epoch %d is claimed by %q, not %q", job.Epoch, job.Owner, owner)
}

// DecideClaimant decides whether (epoch, owner) is the job's standing
// claim, for a call the store conditions on the epoch alone (a retirement,
// a subsumption). Whoever first claims an epoch holds it for good (claims
// only rise, a forgotten job's ID is claimed again only above its last
// epoch), so a claim this read shows as standing is the claimant of that
// epoch whenever the store's epoch condition later holds, and one it
// refuses can be refused at this read. An empty owner is decided on the
// epoch alone by the store's own condition.
func DecideClaimant(job JobState, epoch uint64, owner string) error {
	switch {
	case owner == "":
		return nil
	case !job.Claimed(epoch):
		return fmt.Errorf("%s: %w", epochMismatch(job, epoch), ErrStaleEpoch)
	case owner != job.Owner:
		return fmt.Errorf("%s: %w", ownerMismatch(job, owner), ErrStaleEpoch)
	}
	return nil
}

// DecideClaim decides a leadership claim. It returns the job state to write,
// nil when the claim already stands. A forgotten job's ID is claimed again
// only above its last epoch, so nothing prepared by the old incarnation
// passes the new one's epoch checks.
//
// A claim above a retired job's epoch is a resubmission under the same job
// ID (Flink's application mode): it starts a new incarnation at once, the
// retired epochs forgotten, as collection would forget them later. Its
// watermark rises over every key the job holds (entries; read only for a
// retired job): the old incarnation's tombstones, fences a verify wrote
// after the retirement included, are then never in the new incarnation's
// way, each still answers its own token's verify, and collection takes
// them like any other, kept records excepted (DecideCollect).
func DecideClaim(job JobState, entries []Entry, epoch uint64, owner string) (*JobState, error) {
	switch {
	case job.Retired && epoch <= job.Epoch:
		return nil, fmt.Errorf("claim epoch %d: retired at epoch %d: %w", epoch, job.Epoch, ErrRetired)
	case job.Retired:
		next := JobState{Epoch: epoch, Owner: owner, Watermark: job.Watermark, ForgottenEpoch: job.Epoch}
		for _, e := range entries {
			next.Watermark = max(next.Watermark, e.Checkpoint)
		}
		return &next, nil
	case epoch == job.Epoch && owner == job.Owner:
		return nil, nil
	case epoch <= job.Epoch:
		return nil, fmt.Errorf("claim epoch %d: current epoch is %d (owner %q): %w", epoch, job.Epoch, job.Owner, ErrStaleEpoch)
	}
	next := job
	next.Epoch, next.Owner = epoch, owner
	return &next, nil
}

// DecidePublish decides a publish attempt against the job's state and the
// key's current entry. It returns the entry to write, nil when the key
// already holds the caller's token (a retry that finds its own write).
func DecidePublish(job JobState, cur Entry, p Publication) (*Entry, error) {
	ref := p.Reference
	if cur.HoldsToken(ref.Token) {
		return nil, nil
	}
	wrap := func(err error, format string, args ...any) error {
		return fmt.Errorf("publish checkpoint %d attempt %d: %s: %w", p.Checkpoint, ref.Attempt, fmt.Sprintf(format, args...), err)
	}
	switch {
	case job.Retired:
		return nil, wrap(ErrRetired, "job %s", p.JobID)
	case !job.Claimed(p.Epoch):
		return nil, wrap(ErrStaleEpoch, "%s", epochMismatch(job, p.Epoch))
	case p.Owner != "" && p.Owner != job.Owner:
		return nil, wrap(ErrStaleEpoch, "%s", ownerMismatch(job, p.Owner))
	case p.Checkpoint <= job.Watermark:
		return nil, wrap(ErrBelowWatermark, "watermark %d", job.Watermark)
	case cur.Reference != nil:
		return nil, wrap(ErrConflict, "published by token %q", cur.Reference.Token)
	case cur.Tombstone != nil && cur.Tombstone.Token != ref.Token:
		return nil, wrap(ErrConflict, "tombstone (%s) of token %q", cur.Tombstone.Reason, cur.Tombstone.Token)
	case cur.Tombstone != nil && (cur.Tombstone.Reason != ReasonFenced || cur.Tombstone.FencedUpTo >= ref.Attempt):
		return nil, wrap(ErrFenced, "tombstone (%s) up to attempt %d", cur.Tombstone.Reason, cur.Tombstone.FencedUpTo)
	}
	// Absent, or our own fence below this attempt: a republish replaces it.
	return &Entry{Checkpoint: p.Checkpoint, Reference: &ref}, nil
}

// Verdict is the answer of Verify.
type Verdict int

const (
	// VerdictUnknown: the store did not answer; keep verifying.
	VerdictUnknown Verdict = iota
	// Present: the key holds the caller's token.
	Present
	// Absent: the key does not hold the caller's token and a fence ensures no
	// attempt up to the one verified ever will.
	Absent
)

func (v Verdict) String() string {
	switch v {
	case Present:
		return "Present"
	case Absent:
		return "Absent"
	default:
		return "Unknown"
	}
}

// DecideVerify decides a verification of (token, attempt) against the key's
// entry read linearizably. Present means the token was published: the key
// holds its reference, or the tombstone that removed it. When it returns Absent with an entry, the verdict
// holds only once that tombstone is written.
func DecideVerify(cur Entry, token string, attempt uint32, now time.Time) (Verdict, *Entry) {
	switch {
	case cur.WasPublished(token):
		// Subsumed, retired or quarantined since: it was published all the
		// same, and the finalization must say so (I7).
		return Present, nil
	case cur.Reference != nil:
		// Another token holds the key: every attempt of ours is a conflict.
		return Absent, nil
	case cur.Tombstone != nil && (cur.Tombstone.Token != token || cur.Tombstone.FencedUpTo >= attempt):
		return Absent, nil
	case cur.Tombstone != nil:
		raised := *cur.Tombstone
		raised.FencedUpTo, raised.Since = attempt, now.UTC()
		return Absent, &Entry{Checkpoint: cur.Checkpoint, Tombstone: &raised}
	}
	return Absent, &Entry{Checkpoint: cur.Checkpoint, Tombstone: &Tombstone{
		Token: token, FencedUpTo: attempt, Reason: ReasonFenced, Since: now.UTC(),
	}}
}

// DecideSubsume decides the removal of a checkpoint's reference by the
// job's subsumption owner: the key becomes a tombstone (ReasonSavepoint
// for a savepoint's, ReasonSubsumed otherwise) and the watermark rises to
// the checkpoint. It returns what to write; both nil when the
// subsumption already stands: a tombstone, or nothing at all (its
// tombstone collected, DecideCollectSubsumed), at or below the watermark.
func DecideSubsume(job JobState, cur Entry, id uint64, epoch uint64, now time.Time) (*Entry, *JobState, error) {
	done := cur.Reference == nil && job.Watermark >= id
	if done {
		return nil, nil, nil
	}
	if !job.Claimed(epoch) {
		return nil, nil, fmt.Errorf("subsume checkpoint %d: %s: %w", id, epochMismatch(job, epoch), ErrStaleEpoch)
	}
	var entry *Entry
	switch {
	case cur.Reference != nil:
		// A savepoint's data stays the operator's: its tombstone is its
		// record, which no collection takes.
		reason := ReasonSubsumed
		if cur.Reference.Savepoint {
			reason = ReasonSavepoint
		}
		entry = &Entry{Checkpoint: id, Tombstone: &Tombstone{
			Token: cur.Reference.Token, FencedUpTo: cur.Reference.Attempt, Reason: reason, Since: now.UTC(),
		}}
	case cur.Absent():
		entry = &Entry{Checkpoint: id, Tombstone: &Tombstone{Reason: ReasonSubsumed, Since: now.UTC()}}
	}
	next := job
	if id > next.Watermark {
		next.Watermark = id
	}
	return entry, &next, nil
}

// DecideRetire decides the retirement of a job: every published reference
// becomes a tombstone (ReasonRetained when keep, the operator keeping its
// state; ReasonRetired otherwise; ReasonSavepoint for a savepoint's, whose
// data is never discarded and so keeps its record either way), the
// watermark rises above all of them and no epoch can publish again until
// the job is forgotten. It returns the
// entries and job state to write; nil state when already retired.
func DecideRetire(job JobState, entries []Entry, epoch uint64, keep bool, now time.Time) ([]Entry, *JobState, error) {
	if job.Retired {
		return nil, nil, nil
	}
	if !job.Claimed(epoch) {
		return nil, nil, fmt.Errorf("retire job: %s: %w", epochMismatch(job, epoch), ErrStaleEpoch)
	}
	reason := ReasonRetired
	if keep {
		reason = ReasonRetained
	}
	next := job
	next.Retired = true
	var writes []Entry
	for _, e := range entries {
		if e.Checkpoint > next.Watermark {
			next.Watermark = e.Checkpoint
		}
		if e.Reference != nil {
			r := reason
			if e.Reference.Savepoint {
				r = ReasonSavepoint
			}
			writes = append(writes, Entry{Checkpoint: e.Checkpoint, Tombstone: &Tombstone{
				Token: e.Reference.Token, FencedUpTo: e.Reference.Attempt, Reason: r, Since: now.UTC(),
			}})
		}
	}
	return writes, &next, nil
}

// DecideCollect picks the tombstones that can go: written before olderThan,
// so no activity that saw the key free can still be running, and at or
// below the watermark, so no publish can land on the freed key. A retired
// job accepts no publish at all, so all its old tombstones go, fences a
// verify wrote above the watermark after the retirement included; once
// none is left the job is forgotten (next: its Forgotten state), freeing its
// ID for a new incarnation whose epochs continue above the old ones.
// A kept record (Tombstone.Kept) never goes, whatever its age and whoever
// claims the job now: its state exists for as long as the operator keeps
// it, and an absent key would say its directory is nobody's. A retired job
// holding one stays retired (a resubmission still claims it, DecideClaim).
func DecideCollect(job JobState, entries []Entry, olderThan time.Time) (drop []uint64, next *JobState) {
	for _, e := range entries {
		t := e.Tombstone
		if t != nil && !t.Kept() && t.Since.Before(olderThan) && (job.Retired || e.Checkpoint <= job.Watermark) {
			drop = append(drop, e.Checkpoint)
		}
	}
	if job.Retired && len(drop) == len(entries) {
		forgotten := job.Forgotten()
		next = &forgotten
	}
	return drop, next
}

// DecideCollectSubsumed decides the collection of one subsumed tombstone
// ahead of the TTL: the caller has learned from Temporal that the
// finalization of token has closed, so no verify of it can still come and
// the tombstone's one purpose, telling that verify its token was published
// (I7), is served. The key lies at or below the watermark, so no publish
// can land on it once it is free, and a verify of another token finds it
// free and fences it, as it would any key nobody published. It returns
// whether to delete the key; false without an error when the key holds
// nothing (a retry finding its own delete), ErrConflict when it holds
// anything but that tombstone.
func DecideCollectSubsumed(job JobState, cur Entry, token string) (bool, error) {
	t := cur.Tombstone
	wrap := func(format string, args ...any) error {
		return fmt.Errorf("collect the subsumed tombstone of checkpoint %d token %q: %s: %w", cur.Checkpoint, token, fmt.Sprintf(format, args...), ErrConflict)
	}
	switch {
	case cur.Absent():
		return false, nil
	case cur.Reference != nil:
		return false, wrap("published by token %q", cur.Reference.Token)
	case t.Token != token || t.Reason != ReasonSubsumed:
		return false, wrap("tombstone (%s) of token %q", t.Reason, t.Token)
	case cur.Checkpoint > job.Watermark:
		return false, wrap("above the watermark %d", job.Watermark)
	}
	return true, nil
}

// DecideRelease decides an operator's release of the kept record
// (Tombstone.Kept) of token: the record becomes a retired tombstone since
// now, the record that says the state is nobody's any more. The reconciler
// then discards that state once its grace has passed since the release
// (never a savepoint's data, which stays the operator's), and the
// collection takes the tombstone past its TTL. No publish can land on the
// key either way. It returns the entry to write, nil when the key already
// holds token's retired tombstone (a retry finding its own write, or a
// retirement that let the state go); ErrConflict when it holds anything
// else: only a record of kept state is released, and only by its token.
func DecideRelease(cur Entry, token string, now time.Time) (*Entry, error) {
	t := cur.Tombstone
	wrap := func(format string, args ...any) error {
		return fmt.Errorf("release checkpoint %d of token %q: %s: %w", cur.Checkpoint, token, fmt.Sprintf(format, args...), ErrConflict)
	}
	switch {
	case cur.Reference != nil:
		return nil, wrap("published by token %q", cur.Reference.Token)
	case t == nil:
		return nil, wrap("no record")
	case t.Token != token:
		return nil, wrap("tombstone (%s) of token %q", t.Reason, t.Token)
	case t.Reason == ReasonRetired:
		return nil, nil
	case !t.Kept():
		return nil, wrap("tombstone (%s): not kept state", t.Reason)
	}
	released := *t
	released.Reason, released.Since = ReasonRetired, now.UTC()
	return &Entry{Checkpoint: cur.Checkpoint, Tombstone: &released}, nil
}

// DecideQuarantine decides the quarantine of a dangling reference: the key
// becomes a tombstone of token (ReasonQuarantined) if it still holds
// token's reference. It returns the entry to write, nil when that
// quarantine already stands (a retry that finds its own write).
func DecideQuarantine(cur Entry, token string, now time.Time) (*Entry, error) {
	if cur.HoldsToken(token) {
		// FencedUpTo records the attempt that was published; a tombstone of
		// any reason but fenced keeps every attempt of the token out anyway.
		return &Entry{Checkpoint: cur.Checkpoint, Tombstone: &Tombstone{
			Token: token, FencedUpTo: cur.Reference.Attempt, Reason: ReasonQuarantined, Since: now.UTC(),
		}}, nil
	}
	wrap := func(format string, args ...any) error {
		return fmt.Errorf("quarantine checkpoint %d of token %q: %s: %w", cur.Checkpoint, token, fmt.Sprintf(format, args...), ErrConflict)
	}
	switch {
	case cur.Tombstone != nil && cur.Tombstone.Token == token && cur.Tombstone.Reason == ReasonQuarantined:
		return nil, nil
	case cur.Reference != nil:
		return nil, wrap("published by token %q", cur.Reference.Token)
	case cur.Tombstone != nil:
		return nil, wrap("tombstone (%s) of token %q", cur.Tombstone.Reason, cur.Tombstone.Token)
	}
	return nil, wrap("no reference")
}
