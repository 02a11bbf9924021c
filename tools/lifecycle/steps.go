package lifecycle

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/workflows"
)

// step is one thing a party does: a self-contained datum, so that any
// sub-list of a schedule is a schedule. run does it and says what came of
// it; a step whose subject does not exist (a finalization a shrunk
// schedule never started) does nothing.
type step interface {
	run(ctx context.Context, w *world) string
	String() string
}

// claimStep: a job manager becomes leader, as ClaimEpoch does
// (workflows/leadership.go): the claim, then the restore point read after
// it.
type claimStep struct {
	on    string
	job   stores.JobID
	epoch uint64
	owner string
}

func (s claimStep) String() string {
	return fmt.Sprintf("claim %s epoch %d as %q on the %s worker", s.job, s.epoch, s.owner, s.on)
}

func (s claimStep) run(ctx context.Context, w *world) string {
	wk := w.workers[s.on]
	in := activities.ClaimInput{JobID: s.job, Epoch: s.epoch, Owner: s.owner}
	if _, err := untilDone[struct{}](wk, wk.acts.ClaimEpoch, in); err != nil {
		return "refused: " + clip(contract.FailureMessage(err))
	}
	w.inc[s.job].claims[s.epoch] = s.owner
	rp, err := untilDone[contract.RestorePoint](wk, wk.acts.RestorePoint, activities.RestoreInput{JobID: s.job, Epoch: s.epoch, Owner: s.owner})
	if err != nil {
		return "claimed; restore point refused: " + clip(contract.FailureMessage(err))
	}
	w.judgeRestorePoint(ctx, s.job, rp, true)
	w.seen["claims with restore point "+string(rp.State)]++
	return "claimed; restores " + describeRestore(rp)
}

// restoreStep: Flink's restore path reads the job's restore point
// (LatestCheckpoint, workflows/restore.go).
type restoreStep struct {
	on  string
	job stores.JobID
}

func (s restoreStep) String() string {
	return fmt.Sprintf("read the restore point of %s on the %s worker", s.job, s.on)
}

func (s restoreStep) run(ctx context.Context, w *world) string {
	wk := w.workers[s.on]
	rp, err := untilDone[contract.RestorePoint](wk, wk.acts.RestorePoint, activities.RestoreInput{JobID: s.job})
	if err != nil {
		return "refused: " + clip(contract.FailureMessage(err))
	}
	w.judgeRestorePoint(ctx, s.job, rp, false)
	return describeRestore(rp)
}

func describeRestore(rp contract.RestorePoint) string {
	if rp.Latest == nil {
		return string(rp.State)
	}
	return fmt.Sprintf("%s checkpoint %d (%s)", rp.State, rp.Latest.Checkpoint, rp.Latest.MetadataKey)
}

// checkpointStep triggers a finalization. With write, its job manager
// first writes the checkpoint's files where the request points (Flink's
// layout, internal/testenv/fixtures/jobmanager); without, the request names files someone
// else wrote, or none. role says who sends it.
type checkpointStep struct {
	fin   int
	on    string
	role  string
	req   contract.FinalizeRequest
	write bool
	local bool
	// replay: the request is one an earlier finalization's history shows.
	replay bool
	// impersonates: it names the standing claim's own epoch and owner.
	impersonates bool
	// workflowID is the ID it starts under when not the request's own: a
	// copy of a request under any ID, or a new run of an ID whose
	// execution closed (a start option: the ID reuse policy).
	workflowID string
	// terminates: the start's ID conflict policy terminates the running
	// execution of workflowID first.
	terminates bool
}

// releaseStep: an operator releases kept state by its handle key
// (finalizer-worker release, worker.Release): the keep mark beside the
// handle, then the record in the store.
type releaseStep struct{ handleKey string }

func (s releaseStep) String() string {
	return "an operator releases the kept state of " + s.handleKey
}

func (s releaseStep) run(ctx context.Context, w *world) string {
	id, epoch, err := blobstate.ParseKey(s.handleKey)
	if err != nil {
		return err.Error()
	}
	unmarked, err := w.states.Unkeep(ctx, s.handleKey)
	if err != nil {
		return "refused: " + clip(err.Error())
	}
	w.changes++
	w.written[id.JobID] = true
	err = w.store.Release(ctx, id, contract.Token(id, epoch))
	switch {
	case err == nil:
		w.seen["kept records released by an operator"]++
		return "released its record"
	case unmarked:
		w.seen["keep marks released by an operator"]++
		return "released its mark"
	}
	return "refused: " + clip(err.Error())
}

// abandonStep: an operator abandons a finalization that verifies, or
// waits visible as Verifying (workflows/finalize.go, endAbandoned): the
// mark that keeps its state, then the end.
type abandonStep struct{ fin int }

func (s abandonStep) String() string { return fmt.Sprintf("F%d: an operator abandons it", s.fin) }

func (s abandonStep) run(ctx context.Context, w *world) string {
	f, ok := w.fins[s.fin]
	if !ok || f.ended() || (f.phase != phaseVerify && !f.parked) {
		return "nothing to abandon"
	}
	in := activities.AbandonInput{HandleKey: activities.HandleKey(f.handleKey), Reason: "abandoned by an operator"}
	if _, err := untilDone[struct{}](f.w, f.w.acts.KeepAbandoned, in); err != nil {
		return "mark refused: " + clip(contract.FailureMessage(err))
	}
	f.parked, f.abandoned = false, true
	// What its own removal deleted before is gone for good, and files a
	// later job manager wrote again are that one's: the mark keeps what
	// is left of its own.
	f.keptFiles = nil
	for _, k := range f.files {
		if !f.overwritten && w.exists(ctx, k) {
			f.keptFiles = append(f.keptFiles, k)
		}
	}
	return f.end(contract.Abandoned, in.Reason)
}

// id is the workflow ID the step starts its execution under.
func (s checkpointStep) id() string {
	if s.workflowID != "" {
		return s.workflowID
	}
	return s.req.WorkflowID()
}

func (s checkpointStep) String() string {
	path := "regular"
	if s.local {
		path = "fast path"
	}
	files := "names existing files"
	if s.write {
		files = "writes its files first"
	}
	kind := "checkpoint"
	if s.req.Savepoint {
		kind = "savepoint"
	}
	under := ""
	if s.workflowID != "" {
		under = " under workflow ID " + s.workflowID
	}
	return fmt.Sprintf("F%d: %s triggers %s %s epoch %d (metadata %s, sha256 %.8s…, prefix %q)%s on the %s worker, %s; %s",
		s.fin, s.role, kind, s.req.CheckpointID(), s.req.Epoch, s.req.MetadataKey, s.req.MetadataSHA256, s.req.ExclusivePrefix, under, s.on, path, files)
}

// metadataOf is what a job manager writes as a checkpoint's metadata: it
// differs per epoch, so that a new incarnation's chk-N/ is not the old one's.
func metadataOf(req contract.FinalizeRequest) []byte {
	return fmt.Appendf(nil, "metadata of %s epoch %d", req.CheckpointID(), req.Epoch)
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func (s checkpointStep) run(ctx context.Context, w *world) string {
	prev, dup := w.byWfID[s.id()]
	switch {
	case dup && s.terminates && !prev.ended():
		prev.terminate()
	case dup && (!prev.ended() || s.workflowID == ""):
		return "already started: the trigger reaches the running execution"
	}
	f := &fin{id: s.fin, req: s.req, w: w.workers[s.on], local: s.local, inc: w.inc[s.req.CheckpointID().JobID].n,
		impersonates: s.impersonates, copied: s.workflowID != ""}
	if f.copied {
		w.seen[reachCopy]++
	}
	if s.write {
		inc := w.inc[s.req.CheckpointID().JobID]
		if inc.used[s.req.Checkpoint] {
			// A job manager never reuses a checkpoint ID while its job's HA
			// data lives: a shrunk schedule that would is not a schedule.
			return "skipped: checkpoint ID already used in this incarnation"
		}
		if w.exists(ctx, s.req.MetadataKey) {
			// Flink writes a checkpoint's metadata only where none exists
			// (FsCheckpointMetadataOutputStream: "Target file ... already
			// exists"), so that checkpoint fails before any trigger.
			return "skipped: Flink refuses to write metadata over an existing " + s.req.MetadataKey
		}
		inc.used[s.req.Checkpoint] = true
		for _, id := range w.order {
			if g := w.fins[id]; len(g.files) > 0 && g.req.ExclusivePrefix == s.req.ExclusivePrefix {
				g.overwritten = true
			}
		}
		keys := []string{s.req.MetadataKey}
		if err := w.write(ctx, s.req.MetadataKey, metadataOf(s.req)); err != nil {
			return err.Error()
		}
		if !s.req.Savepoint {
			data := s.req.ExclusivePrefix + "data-0"
			if err := w.write(ctx, data, []byte("operator state of "+s.req.WorkflowID())); err != nil {
				return err.Error()
			}
			keys = append(keys, data)
			shared := sharedKey(s.req.CheckpointID().JobID)
			if err := w.write(ctx, shared, []byte("incremental state shared between checkpoints")); err != nil {
				return err.Error()
			}
		}
		f.files = keys
		w.files[s.req.ExclusivePrefix] = keys
	}
	if s.replay && w.entry(s.req.CheckpointID()).Reference == nil {
		w.seen[reachReplayOfFreedKey]++
	}
	if s.impersonates {
		w.seen[reachImpersonation]++
	}
	if s.on == served && (s.req.Cluster != served || clusterOfKey(s.req.MetadataKey) != s.req.Cluster) {
		w.reach(propTenant)
	}
	w.fins[f.id] = f
	w.order = append(w.order, f.id)
	w.byWfID[s.id()] = f
	return f.start()
}

// sharedKey is a job's shared state (incremental checkpoints' files
// outside every chk-N/): no discard may touch it.
func sharedKey(job stores.JobID) string {
	return checkpointsDir(job.Cluster) + "/" + job.Job + "/shared/sst-1"
}

// advanceStep: Temporal runs a finalization's next activity attempt.
type advanceStep struct {
	fin   int
	fault fault
}

func (s advanceStep) String() string { return fmt.Sprintf("F%d: next activity%s", s.fin, s.fault) }

func (s advanceStep) run(_ context.Context, w *world) string {
	f, ok := w.fins[s.fin]
	switch {
	case !ok:
		return "no such finalization"
	case f.parked:
		return "parked"
	}
	return f.step(s.fault)
}

// crashStep: the worker running a finalization's workflow task dies.
type crashStep struct{ fin int }

func (s crashStep) String() string { return fmt.Sprintf("F%d: its worker crashes", s.fin) }

func (s crashStep) run(_ context.Context, w *world) string {
	if f, ok := w.fins[s.fin]; ok {
		return f.crash()
	}
	return "no such finalization"
}

// zombieStep: a cut-off worker's publish of an earlier attempt lands late.
type zombieStep struct {
	fin     int
	attempt uint32
}

func (s zombieStep) String() string {
	return fmt.Sprintf("F%d: a cut-off worker replays publish attempt %d", s.fin, s.attempt)
}

func (s zombieStep) run(ctx context.Context, w *world) string {
	f, ok := w.fins[s.fin]
	if !ok || f.handleKey == "" {
		return "nothing to replay"
	}
	if f.phase == phasePublish && f.attempts == s.attempt && f.tries == 0 {
		// The replayed request is a try of the attempt the workflow is
		// about to publish, lost with its worker: the workflow's next try
		// is a retry, whose rejection cannot rule the lost one out
		// (activities.Publish).
		f.tries = 1
	}
	p := f.publication()
	p.Reference.Attempt = s.attempt
	before := w.entry(p.CheckpointID)
	_, err := call[struct{}](f.w, faultNone, asFirstRegular, f.w.acts.Publish, p)
	w.judgeZombie(ctx, f, before, s.attempt, err)
	w.seen["zombie publishes "+outcomeOf(err).String()]++
	return "replayed: " + outcomeOf(err).String()
}

// reportStep: a PublishedReport of epoch reaches the job's coordinator on
// the worker (starting it on first use), which passes.
type reportStep struct {
	on    string
	job   stores.JobID
	epoch uint64
	fault fault
}

func (s reportStep) String() string {
	return fmt.Sprintf("coordinator of %s on the %s worker: report of epoch %d, pass%s", s.job, s.on, s.epoch, s.fault)
}

func (s reportStep) run(_ context.Context, w *world) string {
	k := coordKey{worker: s.on, job: s.job}
	c, ok := w.coords[k]
	if !ok {
		c = &coordinator{w: w.workers[s.on], state: contract.CoordinatorState{Cluster: s.job.Cluster, Job: s.job.Job, Epoch: s.epoch}}
		w.coords[k] = c
	}
	return c.report(s.epoch, s.fault)
}

// removeStep: Temporal runs an attempt of a coordinator's removal.
type removeStep struct {
	on    string
	job   stores.JobID
	fault fault
}

func (s removeStep) String() string {
	return fmt.Sprintf("coordinator of %s on the %s worker: remove%s", s.job, s.on, s.fault)
}

func (s removeStep) run(_ context.Context, w *world) string {
	if c, ok := w.coords[coordKey{worker: s.on, job: s.job}]; ok {
		return c.remove(s.fault)
	}
	return "no coordinator"
}

// subsumeStep: someone starts a SubsumeCheckpoint.
type subsumeStep struct {
	on  string
	req workflows.SubsumeRequest
}

func (s subsumeStep) String() string {
	return fmt.Sprintf("SubsumeCheckpoint %s epoch %d as %q handle %s started on the %s worker", s.req.CheckpointID, s.req.Epoch, s.req.Owner, s.req.HandleKey, s.on)
}

func (s subsumeStep) run(ctx context.Context, w *world) string {
	out := subsumeCheckpoint(w.workers[s.on], s.req)
	if err := w.judgeClaim(ctx, "SubsumeCheckpoint", s.req.JobID, &s.req.CheckpointID, s.req.Epoch, s.req.Owner); err != nil {
		return err.Error()
	}
	return out
}

// retireStep: RetireJob (workflows/leadership.go).
type retireStep struct {
	on      string
	job     stores.JobID
	epoch   uint64
	owner   string
	discard bool
}

func (s retireStep) String() string {
	return fmt.Sprintf("retire %s at epoch %d as %q (discard checkpoints %t) on the %s worker", s.job, s.epoch, s.owner, s.discard, s.on)
}

func (s retireStep) run(ctx context.Context, w *world) string {
	req := contract.RetireRequest{Cluster: s.job.Cluster, Job: s.job.Job, Epoch: s.epoch, Owner: s.owner, DiscardCheckpoints: s.discard}
	if err := req.Validate(); err != nil {
		return "invalid: " + err.Error()
	}
	wk := w.workers[s.on]
	in := activities.RetireInput{JobID: s.job, Epoch: s.epoch, Owner: s.owner, DiscardCheckpoints: s.discard}
	_, err := untilDone[struct{}](wk, wk.acts.Retire, in)
	if jerr := w.judgeClaim(ctx, "RetireJob", s.job, nil, s.epoch, s.owner); jerr != nil {
		return jerr.Error()
	}
	if err != nil {
		return "refused: " + clip(contract.FailureMessage(err))
	}
	w.seen["retirements"]++
	if s.discard {
		// The workflow goes on to DiscardRetired (discardRetiredStep).
		w.retiring[coordKey{worker: s.on, job: s.job}] = s.epoch
	}
	return "retired"
}

// reconcileStep: a Reconcile run; with a carry, started as if it were a
// continued run whose report set the cutoffs (offsets from the simulated
// now, so that the step replays alike).
type reconcileStep struct {
	on    string
	req   contract.ReconcileRequest
	carry *carried
}

type carried struct {
	jobs                []stores.JobID
	grace, tombstoneTTL time.Duration
}

func (s reconcileStep) String() string {
	r := s.req
	txt := fmt.Sprintf("Reconcile %s on the %s worker (apply %t, quarantine %t, grace %s, tombstone TTL %s)",
		r.Cluster, s.on, r.Apply, r.QuarantineDangling, time.Duration(r.Grace), time.Duration(r.TombstoneTTL))
	if s.carry != nil {
		txt += fmt.Sprintf(" started with a carry: jobs %v, grace cutoff %s, tombstone cutoff %s", s.carry.jobs, fromNow(-s.carry.grace), fromNow(-s.carry.tombstoneTTL))
	}
	return txt
}

// fromNow shows an offset from the simulated now.
func fromNow(d time.Duration) string {
	if d < 0 {
		return "now-" + (-d).String()
	}
	return "now+" + d.String()
}

func (s reconcileStep) run(_ context.Context, w *world) string {
	req, now := s.req, w.now()
	if s.carry != nil {
		req.Carry = &contract.ReconcileCarry{Jobs: s.carry.jobs, Report: contract.ReconcileReport{
			Cluster: req.Cluster, Now: now, GraceCutoff: now.Add(-s.carry.grace), TombstoneCutoff: now.Add(-s.carry.tombstoneTTL),
		}}
	}
	return reconcileRun(w.workers[s.on], req, now)
}

// clockStep: simulated time passes (the reconciler's now; the stores
// stamp tombstones with the wall clock).
type clockStep struct{ d time.Duration }

func (s clockStep) String() string { return fmt.Sprintf("%s pass", s.d) }

func (s clockStep) run(_ context.Context, w *world) string {
	w.clock += s.d
	return ""
}

// writeStep: another program writes an object into the shared bucket,
// outside every cluster's directories.
type writeStep struct{ key string }

func (s writeStep) String() string { return "another program writes " + s.key }

func (s writeStep) run(ctx context.Context, w *world) string {
	if err := w.write(ctx, s.key, []byte("another program's data at "+s.key)); err != nil {
		return err.Error()
	}
	return ""
}
