package lifecycle

import (
	"context"
	"fmt"
	"io"
	"time"

	"gocloud.dev/blob"

	"github.com/checkpoint-finalizer/finalizer/activities"
	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// violation is a property the store and the bucket broke after a step.
type violation struct {
	property string
	// kind tells violations of one property apart for grouping.
	kind   string
	detail string
}

func (v violation) String() string { return v.property + ": " + v.detail }

// The properties, by name (docs/design.md's invariants and lifecycle rules).
const (
	propTenant    = "tenant isolation"
	propI1        = "I1 no dangling reference"
	propDirectory = "I2 standing leader's checkpoint kept"
	propFencedOut = "I2 standing leader not fenced out"
	propKept      = "I3 kept state kept"
	propLeak      = "I3 no leak at rest"
	propI4        = "I4 every finalization ends"
	propI5        = "I5 retention"
	propI6        = "I6 no zombie write"
	propI7        = "I7 truthful answer"
	propRestore   = "restore point"
	propRetire    = "retire linearizable with publish"
	propCollect   = "tombstones outlive the TTL floor, subsumed ones their finalization"
	propClaim     = "only the standing claim retires or removes"
)

// properties lists every property the checker judges.
var properties = []string{propTenant, propI1, propDirectory, propFencedOut, propKept, propLeak, propI4, propI5, propI6, propI7,
	propRestore, propRetire, propCollect, propClaim}

// preconditions says, for each property, what a schedule must reach for
// the property to have been judged at all: the quick tier fails when one
// stays at zero (TestLifecycleModel), so that no property passes
// vacuously. Each is counted where its check finds something to judge.
var preconditions = map[string]string{
	propTenant:    "requests naming another tenant's cluster or objects, sent to the served worker",
	propI1:        "published references resolved against the bucket",
	propDirectory: "standing leaders' directories checked while their finalization could still publish",
	propFencedOut: "standing leaders' finalizations ended unpublished above the watermark",
	propKept:      "savepoints' and shared files checked after a change",
	propLeak:      "handles judged at rest a day later",
	propI4:        "finalizations settled at rest",
	propI5:        "claimed jobs judged for retention at rest",
	propI6:        "publishes replayed after a fence covering them",
	propI7:        "answers judged as their finalization ended",
	propRestore:   "restore points judged",
	propRetire:    "retired jobs checked for references",
	propCollect:   "keys collected",
	propClaim:     "retirements and removals by a claim that was not the standing one",
}

// reach counts one more judgement of property's precondition, or of a
// named case of it.
func (w *world) reach(property string) {
	if p, ok := preconditions[property]; ok {
		property = p
	}
	w.seen[property]++
}

// holder is the token whatever the key holds belongs to.
func holder(e stores.Entry) string {
	switch {
	case e.Reference != nil:
		return e.Reference.Token
	case e.Tombstone != nil:
		return e.Tombstone.Token
	}
	return ""
}

// claimSeen is a claim's restore point, for the recovery rule: no
// finalization of an older epoch of the same incarnation ends Published
// above it.
type claimSeen struct {
	job   stores.JobID
	epoch uint64
	inc   int
	// above: the newest checkpoint the claim answered, or the watermark
	// if higher.
	above uint64
}

func (w *world) violate(property, format string, args ...any) {
	w.found = append(w.found, violation{property: property, detail: fmt.Sprintf(format, args...)})
}

// check judges what the store and the bucket hold after a step.
func (w *world) check(ctx context.Context) error {
	if err := w.observe(ctx); err != nil {
		return err
	}
	for _, t := range w.workers[served].tenant.drain() {
		w.found = append(w.found, violation{property: propTenant, kind: t.op, detail: fmt.Sprintf("the %s worker: %s %s", served, t.op, t.what)})
	}
	w.workers[peer].tenant.drain() // the peer serves its own cluster: not under test
	w.checkReferences(ctx)
	if w.checked != w.changes {
		// Files written since the last check exist: only a delete or an
		// overwrite can break these.
		w.checked = w.changes
		w.checkDirectories(ctx)
		w.checkKept(ctx)
	}
	w.checkAnswers()
	return nil
}

// checkReferences is I1: every published reference resolves to its
// handle, the handle's metadata has its checksum, and the files its job
// manager wrote under its prefix exist; and a retired job holds none. The checker reads the bucket
// itself rather than through the product's Resolve, which it judges.
func (w *world) checkReferences(ctx context.Context) {
	for _, j := range jobs {
		retired := w.snapshot[j].state.Retired
		if retired {
			w.reach(propRetire)
		}
		for _, e := range w.snapshot[j].sorted() {
			if retired && e.Reference != nil {
				// Retire tombstones every reference and no publish lands
				// after it (docs/design.md, "Retire is linearizable with
				// publish").
				w.violate(propRetire, "%s is retired, yet its key %d holds %s", j, e.Checkpoint, describeEntry(e))
			}
			if e.Reference == nil || w.resolved[e.Reference.Handle] == w.changes+1 {
				continue // nothing in the bucket changed since it resolved
			}
			w.reach(propI1)
			if problem := w.resolve(ctx, e.Reference.Handle); problem != "" {
				w.violate(propI1, "%s/%d: published reference to %s: %s", j, e.Checkpoint, e.Reference.Handle, problem)
				continue
			}
			w.resolved[e.Reference.Handle] = w.changes + 1
		}
	}
}

// resolve says what keeps a handle key from resolving, "" if nothing.
func (w *world) resolve(ctx context.Context, key string) string {
	h, err := w.states.ReadKey(ctx, key)
	if err != nil {
		return "handle: " + err.Error()
	}
	meta, err := w.bucket.ReadAll(ctx, h.MetadataKey)
	switch {
	case err != nil:
		return fmt.Sprintf("metadata %s: %v", h.MetadataKey, err)
	case sha256Hex(meta) != h.MetadataSHA256:
		return fmt.Sprintf("metadata %s does not match its checksum", h.MetadataKey)
	case h.Savepoint:
		return ""
	}
	if gone := w.missing(ctx, w.files[h.ExclusivePrefix]); gone != "" {
		return "data " + gone + " is gone"
	}
	return ""
}

// missing returns the first of keys the bucket no longer holds.
func (w *world) missing(ctx context.Context, keys []string) string {
	for _, k := range keys {
		if !w.exists(ctx, k) {
			return k
		}
	}
	return ""
}

// standing describes a finalization's epoch as its job's store says now.
func (w *world) standing(f *fin) string {
	st := w.snapshot[f.req.CheckpointID().JobID].state
	switch {
	case f.inc != w.inc[f.req.CheckpointID().JobID].n || f.req.Epoch <= st.ForgottenEpoch:
		return "of a forgotten incarnation"
	case st.Retired:
		return "of a retired job"
	case st.Claimed(f.req.Epoch) && f.req.Owner != st.Owner:
		return "of the standing epoch under another owner"
	case st.Claimed(f.req.Epoch):
		return "of the standing epoch"
	case f.req.Epoch > st.Epoch || st.Owner == "":
		return "of an epoch nobody claimed"
	}
	return "of a deposed epoch"
}

// needsDirectory reports whether a finalization's checkpoint directory
// must stay: its job manager wrote it, its epoch is the job's standing
// claim, and it can still publish: it is persisting, publishing or
// verifying (not discarding, which it decides only once it never can),
// above the watermark, its token not published and removed since (which
// makes the state the removal's to discard) nor fenced for good.
func (w *world) needsDirectory(f *fin) bool {
	id := f.req.CheckpointID()
	st := w.snapshot[id.JobID].state
	e := w.entry(id)
	removed := e.Tombstone != nil && e.Tombstone.Token == f.token() && e.Tombstone.Removed()
	// A discard of another execution of its token (a copy under another
	// workflow ID) fenced every attempt of it: it can never publish, and
	// the state was that discard's to delete.
	given := e.Tombstone != nil && e.Tombstone.Token == f.token() && e.Tombstone.FencedUpTo == activities.FenceAll
	publishing := f.phase == phasePersist || f.phase == phasePublish || f.phase == phaseVerify
	return len(f.files) > 0 && publishing && !f.req.Savepoint && w.standing(f) == "of the standing epoch" &&
		id.Checkpoint > st.Watermark && !removed && !given
}

// checkDirectories is truth to the job manager (I2): a healthy standing
// leader's checkpoint directory is never deleted while its finalization
// can still publish. Whoever deletes it (a request of another epoch or
// incarnation, a reconciler) decides a directory only the standing epoch
// may decide.
func (w *world) checkDirectories(ctx context.Context) {
	for _, id := range w.order {
		f := w.fins[id]
		if !w.needsDirectory(f) {
			continue
		}
		w.reach(propDirectory)
		if gone := w.missing(ctx, f.files); gone != "" {
			w.violate(propDirectory, "F%d (%s, %s) can still publish, but %s is gone", f.id, f.req.WorkflowID(), w.standing(f), gone)
		}
	}
}

// checkKept: a job's shared files and every savepoint's files are never
// deleted, and the state a retirement retained stays while its tombstone
// stands, a resubmission claimed above it or not (docs/design.md,
// "Retirement keeps state by default").
func (w *world) checkKept(ctx context.Context) {
	for _, id := range w.order {
		f := w.fins[id]
		if len(f.files) == 0 {
			continue
		}
		var keep []string
		switch {
		case !f.req.Savepoint:
			keep = []string{sharedKey(f.req.CheckpointID().JobID)}
		case !f.overwritten:
			keep = f.files
		}
		if len(keep) > 0 {
			w.reach(propKept)
		}
		if gone := w.missing(ctx, keep); gone != "" {
			w.violate(propKept, "F%d: %s is gone, which no discard may delete", f.id, gone)
		}
		if f.abandoned {
			if _, marked, err := w.states.Mark(ctx, f.handleKey); err == nil && marked {
				w.seen[reachAbandonedKept]++
				if gone := w.missing(ctx, f.keptFiles); gone != "" {
					w.violate(propKept, "F%d: an operator abandoned it and keeps its state, but %s is gone", f.id, gone)
				}
			}
		}
		jid := f.req.CheckpointID()
		e := w.entry(jid)
		if e.Tombstone != nil && e.Tombstone.Reason == stores.ReasonRetained && e.Tombstone.Token == f.token() {
			if gone := w.missing(ctx, f.files); gone != "" {
				w.violate(propKept, "F%d: its retirement retained its state, but %s is gone", f.id, gone)
			}
		}
		w.reachKept(f, e)
	}
}

// Reach of the kept-state preconditions that once went unchecked, which
// the quick tier requires (TestLifecycleModel): kept state whose record
// would once have been collected, checked after every step.
const (
	reachOwnDirSavepoint  = "savepoints in their own checkpoint directory, removed, their record standing"
	reachRetainedPastTTL  = "retained state of a resubmitted job, past the TTL floor"
	reachReplayOfFreedKey = "replays of an earlier request naming a key without a reference"
	reachImpersonation    = "replays under the standing claim's own epoch and owner"
	reachCopy             = "copies of a request under another workflow ID or a new run of a closed one"
	reachAbandonedKept    = "abandoned state checked while its mark stands"
)

// reachRequired are the reach counts the quick tier requires above zero:
// every property's precondition, and the kept-state cases above.
var reachRequired = func() []string {
	out := []string{reachOwnDirSavepoint, reachRetainedPastTTL, reachReplayOfFreedKey, reachRetiredDiscarded, reachImpersonation, reachCopy, reachAbandonedKept}
	for _, p := range properties {
		out = append(out, preconditions[p])
	}
	return out
}()

// reachKept counts f's kept state in the preconditions above.
func (w *world) reachKept(f *fin, e stores.Entry) {
	t := e.Tombstone
	if t == nil || !t.Kept() || t.Token != f.token() {
		return
	}
	if f.req.Savepoint && f.req.ExclusivePrefix == checkpointDir(f.req.CheckpointID()) {
		w.seen[reachOwnDirSavepoint]++
	}
	st := w.snapshot[f.req.CheckpointID().JobID].state
	floor := reconcileacts.DefaultFloors().TombstoneTTL
	if t.Reason == stores.ReasonRetained && !st.Retired && f.req.Epoch <= st.ForgottenEpoch && w.now().Sub(t.Since) > floor {
		w.seen[reachRetainedPastTTL]++
	}
}

// checkAnswers is I7 and the recovery rule, for each finalization as it
// ends, and, for good, that a token answered Discarded or Failed never
// lands (I6).
func (w *world) checkAnswers() {
	for _, id := range w.order {
		f := w.fins[id]
		if !f.ended() {
			continue
		}
		if f.copied || f.terminated {
			// A copy's answer goes to whoever started it, and a
			// terminated execution gives none: the job manager's own
			// execution of the token is judged, and what either did to
			// the store and the bucket by every other property.
			if !f.judged {
				f.judged, f.endedAt = true, w.now()
			}
			continue
		}
		cid := f.req.CheckpointID()
		e := w.entry(cid)
		if !f.judged {
			f.judged, f.endedAt = true, w.now()
			w.reach(propI7)
			w.judgeAnswer(f, e)
		}
		if (f.result == contract.Discarded || f.result == contract.Failed) && e.HoldsToken(f.token()) {
			w.violate(propI6, "F%d ended %s, but its reference stands now", f.id, f.result)
		}
	}
}

func (w *world) judgeAnswer(f *fin, e stores.Entry) {
	cid := f.req.CheckpointID()
	ever := w.published[cid][f.token()]
	switch f.result {
	case contract.Published:
		if !ever {
			w.violate(propI7, "F%d ended Published (%s), but its token was never published", f.id, f.reason)
		}
		for _, c := range w.claims {
			if c.job == cid.JobID && c.inc == f.inc && c.epoch > f.req.Epoch && cid.Checkpoint > c.above {
				w.violate(propRestore, "F%d of epoch %d ended Published at checkpoint %d, above the restore point %d the claim of epoch %d answered",
					f.id, f.req.Epoch, cid.Checkpoint, c.above, c.epoch)
			}
		}
	case contract.Discarded, contract.Failed:
		// A token published and its tombstone collected at the TTL floor
		// since reads as never published: the floor bounds that
		// (contract's MinTombstoneTTL). Collected earlier, it must not.
		if e.WasPublished(f.token()) {
			w.violate(propI7, "F%d ended %s (%s), but its key shows its token published: %s", f.id, f.result, clip(f.reason), describeEntry(e))
		} else if ever && !w.agedOut[cid][f.token()] {
			w.violate(propI7, "F%d ended %s (%s), but its token was published and its tombstone collected before the TTL floor", f.id, f.result, clip(f.reason))
		}
		// Within an incarnation only the standing leader's finalization
		// names its checkpoint ID: another token at its key above the
		// watermark is a request that fenced a healthy leader out.
		other := e.Reference != nil && e.Reference.Token != f.token() || e.Tombstone != nil && e.Tombstone.Token != f.token()
		if len(f.files) > 0 && w.standing(f) == "of the standing epoch" && cid.Checkpoint > w.snapshot[cid.JobID].state.Watermark {
			w.reach(propFencedOut)
		}
		if len(f.files) > 0 && other && w.standing(f) == "of the standing epoch" && cid.Checkpoint > w.snapshot[cid.JobID].state.Watermark {
			if g := w.byToken(holder(e)); g != nil && g.impersonates {
				// An impersonator of an earlier standing claim took the
				// ID first: to the worker that was the leader's checkpoint.
				w.reach(propFencedOut + " (ID taken by an impersonator)")
			} else {
				w.violate(propFencedOut, "F%d of the standing epoch ended %s (%s): its key holds %s", f.id, f.result, clip(f.reason), describeEntry(e))
			}
		}
	}
}

// judgeZombie is I6: a publish replayed after a fence covering it is
// Rejected and changes nothing.
func (w *world) judgeZombie(ctx context.Context, f *fin, before stores.Entry, attempt uint32, err error) {
	t := before.Tombstone
	covered := before.Reference != nil && before.Reference.Token != f.token() ||
		t != nil && (t.Token != f.token() || t.Reason != stores.ReasonFenced || t.FencedUpTo >= attempt)
	if !covered {
		return
	}
	w.reach(propI6)
	after, rerr := w.store.Read(ctx, f.req.CheckpointID())
	if rerr != nil {
		w.violate(propI6, "F%d: reading the key after a replay: %v", f.id, rerr)
		return
	}
	if outcomeOf(err) != stores.Rejected {
		w.violate(propI6, "F%d: replay of attempt %d over %s answered %s", f.id, attempt, describeEntry(before), outcomeOf(err))
	}
	if describeEntry(after) != describeEntry(before) {
		w.violate(propI6, "F%d: replay of attempt %d changed the key from %s to %s", f.id, attempt, describeEntry(before), describeEntry(after))
	}
}

// judgeRestorePoint: a restore point answers the newest reference the
// store holds, and a resolved one names data of the job's own cluster
// whose metadata checks. A claim's is remembered for the recovery rule.
func (w *world) judgeRestorePoint(ctx context.Context, job stores.JobID, rp contract.RestorePoint, claim bool) {
	w.reach(propRestore)
	refs, err := w.store.List(ctx, job)
	if err != nil {
		w.violate(propRestore, "%s: listing: %v", job, err)
		return
	}
	st, err := w.store.ReadJob(ctx, job)
	if err != nil {
		w.violate(propRestore, "%s: reading the job: %v", job, err)
		return
	}
	var newest uint64
	if len(refs) > 0 {
		newest = refs[len(refs)-1].Checkpoint
	}
	switch {
	case rp.Latest == nil && newest != 0:
		w.violate(propRestore, "%s: answered no restore point, but checkpoint %d is published", job, newest)
	case rp.Latest != nil && rp.Latest.Checkpoint != newest:
		w.violate(propRestore, "%s: answered checkpoint %d, but the newest published is %d", job, rp.Latest.Checkpoint, newest)
	}
	if rp.State == contract.RestoreResolved {
		for _, key := range []string{rp.Latest.MetadataKey, rp.Latest.ExclusivePrefix} {
			if c := clusterOfKey(key); c != "" && c != job.Cluster {
				w.violate(propRestore, "%s: the restore point names %s, data of cluster %s", job, key, c)
			}
		}
	}
	if claim {
		w.claims = append(w.claims, claimSeen{job: job, epoch: st.Epoch, inc: w.inc[job].n, above: max(newest, st.Watermark)})
	}
}

// checkAtRest settles the schedule (every finalization run to its end
// without faults, a last retention pass per claimed job) and judges I4
// and I5.
func (w *world) checkAtRest(ctx context.Context) error {
	for _, id := range w.order {
		f := w.fins[id]
		for try := 0; try < 30 && !f.ended() && !f.parked; try++ {
			w.settled = append(w.settled, fmt.Sprintf("F%d: %s", f.id, f.step(faultNone)))
		}
		w.reach(propI4)
		if !f.ended() && !f.parked {
			w.violate(propI4, "F%d (%s) did not end: still at %v after 30 activities", f.id, f.req.WorkflowID(), f.phase)
		}
	}
	w.settleRetirements(ctx)
	// At rest every job is read again, not only those the store's calls
	// named: a call that changed a job it did not name shows here.
	w.rereadAll()
	if err := w.check(ctx); err != nil {
		return err
	}
	for _, j := range jobs {
		st := w.snapshot[j].state
		if st.Owner == "" || st.Retired {
			continue
		}
		// A coordinator's removal in flight is retried by Temporal until
		// it is done; then the job's background retention passes, as
		// every publish's would.
		if c, ok := w.coords[coordKey{worker: j.Cluster, job: j}]; ok {
			for try := 0; try < 10 && c.pending != nil; try++ {
				w.settled = append(w.settled, fmt.Sprintf("coordinator of %s: %s", j, c.remove(faultNone)))
			}
		}
		w.settled = append(w.settled, drainStep{on: j.Cluster, job: j}.run(ctx, w))
	}
	if err := w.check(ctx); err != nil {
		return err
	}
	for _, j := range jobs {
		snap := w.snapshot[j]
		if snap.state.Owner == "" || snap.state.Retired {
			continue
		}
		var refs []stores.Entry
		for _, e := range snap.sorted() {
			if e.Reference != nil {
				refs = append(refs, e)
			}
		}
		w.reach(propI5)
		if _, remove := activities.RetentionPlan(refs, retain); len(remove) > 0 {
			w.violate(propI5, "%s holds %d references once settled; retention would still remove %d", j, len(refs), len(remove))
		}
	}
	return w.checkLeaks(ctx)
}

// checkLeaks is I3 at rest: a day later (past the reconciler's floors and
// the namespace's retention of closed histories) an applied reconcile run
// per cluster either discards each handle no reference of its token
// points at, or reports it (an orphan kept, in flight, or not discarded,
// each with its reason); a parked finalization's is visible as Verifying.
func (w *world) checkLeaks(ctx context.Context) error {
	w.clock += 25 * time.Hour
	for _, c := range clusters {
		wk := w.workers[c]
		req := contract.ReconcileRequest{Cluster: c, Apply: true, Grace: contract.Duration(time.Hour), TombstoneTTL: contract.Duration(time.Hour)}
		w.settled = append(w.settled, "reconciler a day later: "+reconcileRun(wk, req, w.now()))
	}
	if err := w.check(ctx); err != nil {
		return err
	}
	reported := map[string]bool{}
	parked := map[string]bool{}
	for _, c := range clusters {
		for _, k := range w.workers[c].orphans {
			reported[k] = true
		}
	}
	for _, f := range w.fins {
		if f.parked {
			parked[f.handleKey] = true
		}
	}
	it := w.bucket.List(&blob.ListOptions{Prefix: stores.HandlesPrefix})
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("list handles: %w", err)
		}
		id, epoch, err := blobstate.ParseKey(obj.Key)
		if err != nil {
			continue
		}
		w.reach(propLeak)
		if reported[obj.Key] || parked[obj.Key] {
			continue
		}
		if e := w.entry(id); !e.HoldsToken(contract.Token(id, epoch)) {
			w.violate(propLeak, "handle %s: no reference of its token (%s), and the reconciler a day later neither discarded nor reported it", obj.Key, describeEntry(e))
		}
	}
}

func describeEntry(e stores.Entry) string {
	switch {
	case e.Reference != nil:
		return fmt.Sprintf("a reference of token %.8s attempt %d", e.Reference.Token, e.Reference.Attempt)
	case e.Tombstone != nil:
		return fmt.Sprintf("a %s tombstone of token %.8s up to attempt %d", e.Tombstone.Reason, e.Tombstone.Token, e.Tombstone.FencedUpTo)
	}
	return "nothing"
}

// checkCollected is step 7's floor: a tombstone goes only once older than
// any activity could live (the worker's tombstone TTL floor, counted on the
// simulated clock), whatever cutoff a run asked for, or, subsumed, once the
// finalization of its token has ended and the watermark covers the key (a
// retention pass's early collection, which may subsume and collect a
// reference within one step). A kept record (retained, a savepoint's) never
// goes. Nothing else removes a key. What went at the
// floor is remembered: only then may a finalization that published answer
// otherwise (judgeAnswer).
func (w *world) checkCollected(j stores.JobID, now jobSnapshot) {
	floor := reconcileacts.DefaultFloors().TombstoneTTL
	limit := w.now().Add(-floor)
	for _, e := range w.snapshot[j].sorted() {
		if _, still := now.entries[e.Checkpoint]; still {
			continue
		}
		w.reach(propCollect)
		id := stores.CheckpointID{JobID: j, Checkpoint: e.Checkpoint}
		t, token := e.Tombstone, publishedToken(e)
		switch {
		case t != nil && t.Kept():
			w.violate(propKept, "%s/%d: %s, the record of kept state, was collected", j, e.Checkpoint, describeEntry(e))
		case t != nil && t.Since.Before(limit):
			if w.agedOut[id] == nil {
				w.agedOut[id] = map[string]bool{}
			}
			w.agedOut[id][t.Token] = true
		case (t == nil || t.Reason == stores.ReasonSubsumed) && w.ended(token) && e.Checkpoint <= now.state.Watermark:
			w.seen["subsumed tombstones collected once their finalization ended"]++
		default:
			w.violate(propCollect, "%s/%d: %s was collected, its finalization %s, the watermark %d",
				j, e.Checkpoint, describeAge(e, w.now(), floor), w.finalizationOf(token), now.state.Watermark)
		}
	}
}

// describeAge says what a key held and, for a tombstone, how old it was
// against the floor.
func describeAge(e stores.Entry, now time.Time, floor time.Duration) string {
	if e.Tombstone == nil {
		return describeEntry(e)
	}
	return fmt.Sprintf("%s written %s ago, under the floor of %s", describeEntry(e), now.Sub(e.Tombstone.Since).Round(time.Second), floor)
}

// ended reports whether the finalization of token has ended.
func (w *world) ended(token string) bool {
	f := w.byToken(token)
	return f != nil && f.ended()
}

// finalizationOf says how the finalization of token stands, for a report.
func (w *world) finalizationOf(token string) string {
	switch f := w.byToken(token); {
	case f == nil:
		return "never started"
	case f.ended():
		return fmt.Sprintf("F%d ended %s", f.id, f.result)
	default:
		return fmt.Sprintf("F%d still running", f.id)
	}
}

func (w *world) byToken(token string) *fin {
	for _, id := range w.order {
		if f := w.fins[id]; f.token() == token {
			return f
		}
	}
	return nil
}

// judgeClaim is the rule that a request writes only under the whole
// standing claim, epoch and owner: a retirement or removal by a claim that
// was not the job's standing one before its step changed neither the
// job's state nor the checkpoint's key (id; nil for a retirement).
func (w *world) judgeClaim(ctx context.Context, what string, job stores.JobID, id *stores.CheckpointID, epoch uint64, owner string) error {
	before := w.snapshot[job]
	if before.state.Claimed(epoch) && before.state.Owner == owner {
		return nil
	}
	w.reach(propClaim)
	st, err := w.store.ReadJob(ctx, job)
	if err != nil {
		return fmt.Errorf("read job %s: %w", job, err)
	}
	if st != before.state {
		w.violate(propClaim, "%s by epoch %d of %q, not the standing claim (%s): the job's state went from %+v to %+v", what, epoch, owner, claimText(before.state), before.state, st)
		return nil
	}
	if id == nil {
		return nil
	}
	e, err := w.store.Read(ctx, *id)
	if err != nil {
		return fmt.Errorf("read %s: %w", id, err)
	}
	if was := w.entry(*id); describeEntry(e) != describeEntry(was) {
		w.violate(propClaim, "%s by epoch %d of %q, not the standing claim (%s): key %d went from %s to %s", what, epoch, owner, claimText(before.state), id.Checkpoint, describeEntry(was), describeEntry(e))
	}
	return nil
}

// claimText names a job's standing claim.
func claimText(st stores.JobState) string {
	if st.Owner == "" {
		return fmt.Sprintf("unclaimed at epoch %d", st.Epoch)
	}
	return fmt.Sprintf("epoch %d of %q", st.Epoch, st.Owner)
}
