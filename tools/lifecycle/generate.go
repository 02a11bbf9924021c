package lifecycle

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/workflows"
)

// generator chooses a schedule's next steps from what the world holds now,
// seeded: the same seed, against the same code, chooses the same schedule.
// It plays every party, honest or not, but always as the contract allows
// a party to act: a job manager never reuses a checkpoint ID while its
// job's HA data lives, and writes its files before it triggers.
type generator struct {
	r       *rand.Rand
	w       *world
	nextFin int
}

func newGenerator(seed uint64, w *world) *generator {
	return &generator{r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), w: w, nextFin: 1}
}

// choice is one kind of step and how often the generator picks it.
type choice struct {
	weight int
	steps  func(g *generator) []step
}

var choices = []choice{
	{40, (*generator).advance},
	{12, (*generator).leaderCheckpoint},
	{8, (*generator).claim},
	{3, (*generator).report},
	{8, (*generator).drain},
	{4, (*generator).remove},
	{7, (*generator).foreignEpochRequest},
	{4, (*generator).adversarialRequest},
	{3, (*generator).deposedCheckpoint},
	{3, (*generator).retire},
	{4, (*generator).discardRetired},
	{4, (*generator).reconcile},
	{3, (*generator).reuse},
	{2, (*generator).clock},
	{2, (*generator).restore},
	{2, (*generator).crash},
	{2, (*generator).zombie},
	{1, (*generator).subsume},
	{2, (*generator).overtake},
	{4, (*generator).replay},
	{3, (*generator).copyRequest},
	{1, (*generator).release},
	{2, (*generator).abandon},
}

var totalWeight = func() int {
	n := 0
	for _, c := range choices {
		n += c.weight
	}
	return n
}()

// next returns the next steps: usually one, a short episode for job-ID
// reuse; nil when the chosen kind has nothing to act on.
func (g *generator) next() []step {
	n := g.r.IntN(totalWeight)
	for _, c := range choices {
		if n < c.weight {
			return c.steps(g)
		}
		n -= c.weight
	}
	return nil
}

func (g *generator) job() stores.JobID { return jobs[g.r.IntN(len(jobs))] }

func (g *generator) state(job stores.JobID) stores.JobState { return g.w.snapshot[job].state }

func pick[T any](g *generator, xs []T) (T, bool) {
	var zero T
	if len(xs) == 0 {
		return zero, false
	}
	return xs[g.r.IntN(len(xs))], true
}

func (g *generator) fault() fault {
	switch n := g.r.IntN(100); {
	case n < 20:
		return faultTimeout
	case n < 32:
		return faultLost
	case n < 38:
		return faultCrash1 + fault(g.r.IntN(3))
	}
	return faultNone
}

// live are the finalizations still running.
func (g *generator) live() []*fin {
	var out []*fin
	for _, id := range g.w.order {
		if f := g.w.fins[id]; !f.ended() && !f.parked {
			out = append(out, f)
		}
	}
	return out
}

// withFiles are the job's finalizations whose job manager wrote their
// files; with running, those still running if any are.
func (g *generator) withFiles(job stores.JobID, running bool) []*fin {
	var all, live []*fin
	for _, id := range g.w.order {
		if f := g.w.fins[id]; len(f.files) > 0 && f.req.CheckpointID().JobID == job {
			all = append(all, f)
			if !f.ended() {
				live = append(live, f)
			}
		}
	}
	if running && len(live) > 0 {
		return live
	}
	return all
}

// nextCheckpoint is the job's checkpoint counter in its incarnation (the
// job managers' shared one: ZooKeeper's in Flink); IDs near the top of the
// range do not move it.
func (g *generator) nextCheckpoint(job stores.JobID) uint64 {
	var top uint64
	for n := range g.w.inc[job].used {
		if n < math.MaxUint32 {
			top = max(top, n)
		}
	}
	return top + 1
}

// leader is the claimant of epoch: every claim of it names this owner.
func leader(epoch uint64) string { return fmt.Sprintf("leader-%d", epoch) }

// intruder is the owner an impersonator names: anyone in the namespace
// can start a request of the standing epoch, but not under its claim.
const intruder = "intruder"

// request is the request for a checkpoint (or savepoint) written in the
// cluster's layout.
func request(job stores.JobID, epoch, n uint64, savepoint bool, inc int) contract.FinalizeRequest {
	prefix := checkpointDir(stores.CheckpointID{JobID: job, Checkpoint: n})
	if savepoint {
		prefix = fmt.Sprintf("%s/%s/sp-%d-%d/", savepointsDir(job.Cluster), job.Job, inc, n)
	}
	req := contract.FinalizeRequest{Cluster: job.Cluster, Job: job.Job, Epoch: epoch, Owner: leader(epoch), Checkpoint: n,
		MetadataKey: prefix + "_metadata", ExclusivePrefix: prefix, Savepoint: savepoint}
	req.MetadataSHA256 = sha256Hex(metadataOf(req))
	return req
}

// inOwnDirectory moves a savepoint's files into its own checkpoint
// directory, where a cluster may keep them whether or not it has a
// savepoints directory.
func inOwnDirectory(req contract.FinalizeRequest) contract.FinalizeRequest {
	req.ExclusivePrefix = checkpointDir(req.CheckpointID())
	req.MetadataKey = req.ExclusivePrefix + "_metadata"
	return req
}

func (g *generator) trigger(on, role string, req contract.FinalizeRequest, write bool) []step {
	return []step{g.triggerStep(on, role, req, write)}
}

// triggerStep is the step that triggers req's finalization.
func (g *generator) triggerStep(on, role string, req contract.FinalizeRequest, write bool) checkpointStep {
	if g.r.IntN(4) == 0 {
		req.MaxPublishAttempts = 1
	}
	s := checkpointStep{fin: g.nextFin, on: on, role: role, req: req, write: write, local: g.r.IntN(2) == 0}
	g.nextFin++
	return s
}

// leaderCheckpoint: the standing leader takes a checkpoint (a savepoint
// now and then, an ID at the top of the range rarely).
func (g *generator) leaderCheckpoint() []step {
	job := g.job()
	st := g.state(job)
	if st.Owner == "" || st.Retired {
		return nil
	}
	n := g.nextCheckpoint(job)
	if g.r.IntN(30) == 0 {
		n = math.MaxUint64 - uint64(g.r.IntN(2))
	}
	req := request(job, st.Epoch, n, g.r.IntN(8) == 0, g.w.inc[job].n)
	if req.Savepoint && g.r.IntN(2) == 0 {
		req = inOwnDirectory(req)
	}
	req.Owner = st.Owner
	return g.trigger(job.Cluster, "the leader", req, true)
}

// overtake: a leader's finalization publishes but its reply is lost, and
// before it runs again the leader publishes newer checkpoints and its
// coordinator's pass removes the one still running: retention overtaking
// a finalization whose verify must still find its token published.
func (g *generator) overtake() []step {
	var publishing []*fin
	for _, f := range g.live() {
		st := g.state(f.req.CheckpointID().JobID)
		if f.phase == phasePublish && len(f.files) > 0 && st.Claimed(f.req.Epoch) && st.Owner == f.req.Owner {
			publishing = append(publishing, f)
		}
	}
	f, ok := pick(g, publishing)
	if !ok {
		return nil
	}
	job := f.req.CheckpointID().JobID
	st := g.state(job)
	steps := []step{advanceStep{fin: f.id, fault: faultLost}}
	n := g.nextCheckpoint(job)
	for i := range uint64(retain) {
		req := request(job, st.Epoch, n+i, false, g.w.inc[job].n)
		req.Owner = st.Owner
		id := g.nextFin
		steps = append(steps, g.trigger(job.Cluster, "the leader", req, true)...)
		steps = append(steps, advanceStep{fin: id}, advanceStep{fin: id})
	}
	return append(steps, reportStep{on: job.Cluster, job: job, epoch: st.Epoch}, removeStep{on: job.Cluster, job: job})
}

// deposedCheckpoint: a deposed leader, still running, takes a checkpoint:
// the newest epoch claimed in this incarnation below the standing one. (A
// deposed epoch of a forgotten incarnation counts its checkpoints on the
// old incarnation's counter, not this one's: its requests are the
// forgotten incarnation's requests; an epoch nobody claimed has no leader.)
func (g *generator) deposedCheckpoint() []step {
	job := g.job()
	st := g.state(job)
	if st.Retired {
		return nil
	}
	var epoch uint64
	for e := range g.w.inc[job].claims {
		if e < st.Epoch && e > epoch {
			epoch = e
		}
	}
	if epoch == 0 {
		return nil
	}
	req := request(job, epoch, g.nextCheckpoint(job), false, g.w.inc[job].n)
	req.Owner = g.w.inc[job].claims[epoch]
	return g.trigger(job.Cluster, "a deposed leader", req, true)
}

// foreignEpochRequest: a request naming a checkpoint a job manager wrote,
// sent for a claim that is not the standing one: nobody's epoch, a
// deposed one, one of the job ID's forgotten incarnation, or the standing
// epoch under another owner.
func (g *generator) foreignEpochRequest() []step {
	job := g.job()
	f, ok := pick(g, g.withFiles(job, true))
	if !ok {
		return nil
	}
	st := g.state(job)
	req := f.req
	req.MaxPublishAttempts = 0
	switch g.r.IntN(4) {
	case 0:
		req.Epoch, req.MetadataSHA256 = st.Epoch+50+uint64(g.r.IntN(50)), f.req.MetadataSHA256
		req.Owner = leader(req.Epoch)
		return g.trigger(job.Cluster, "a request of an epoch nobody claimed", req, false)
	case 1:
		if st.Epoch < 2 {
			return nil
		}
		req.Epoch = st.Epoch - 1
		req.Owner = leader(req.Epoch)
		return g.trigger(job.Cluster, "a deposed leader's request", req, false)
	case 2:
		if st.Owner == "" {
			return nil
		}
		req.Epoch, req.Owner = st.Epoch, intruder
		return g.trigger(job.Cluster, "an impersonator of the standing epoch", req, false)
	}
	if st.ForgottenEpoch == 0 {
		return nil
	}
	req.Epoch = 1 + uint64(g.r.IntN(int(min(st.ForgottenEpoch, 100))))
	req.Owner = leader(req.Epoch)
	return g.trigger(job.Cluster, "a forgotten incarnation's request", req, false)
}

// replay: anyone in the namespace replays a request a finalization's
// history shows (running or ended, a savepoint's as it was or as a
// checkpoint) under another claim: an epoch nobody claimed, a deposed one,
// the standing epoch under another owner, the job ID's forgotten
// incarnation, or the standing claim's own epoch and owner, which
// histories show too: that one impersonates the standing leader.
func (g *generator) replay() []step {
	job := g.job()
	all := g.withFiles(job, false)
	// Mostly a request whose key holds no reference any more (removed,
	// its tombstone collected or not): where an empty key could be read
	// as "nobody's directory".
	var freed []*fin
	for _, f := range all {
		if g.w.entry(f.req.CheckpointID()).Reference == nil {
			freed = append(freed, f)
		}
	}
	if len(freed) > 0 && g.r.IntN(4) > 0 {
		all = freed
	}
	f, ok := pick(g, all)
	if !ok {
		return nil
	}
	st := g.state(job)
	req := f.req
	req.MaxPublishAttempts = 0
	if g.r.IntN(2) == 0 {
		req.Savepoint = false
	}
	impersonates := false
	switch g.r.IntN(5) {
	case 4:
		if st.Owner == "" || st.Retired {
			return nil
		}
		req.Epoch, req.Owner, impersonates = st.Epoch, st.Owner, true
	case 0:
		req.Epoch = st.Epoch + 50 + uint64(g.r.IntN(50))
		req.Owner = leader(req.Epoch)
	case 1:
		if st.Epoch <= st.ForgottenEpoch+1 {
			return nil
		}
		req.Epoch = st.ForgottenEpoch + 1 + uint64(g.r.IntN(int(st.Epoch-st.ForgottenEpoch-1)))
		req.Owner = leader(req.Epoch)
	case 2:
		if st.Owner == "" {
			return nil
		}
		req.Epoch, req.Owner = st.Epoch, intruder
	default:
		if st.ForgottenEpoch == 0 {
			return nil
		}
		req.Epoch = 1 + uint64(g.r.IntN(int(min(st.ForgottenEpoch, 100))))
		req.Owner = leader(req.Epoch)
	}
	s := g.triggerStep(job.Cluster, fmt.Sprintf("a replay of F%d's request", f.id), req, false)
	s.replay, s.impersonates = true, impersonates
	return []step{s}
}

// adversarialRequest: requests over the edges of the contract, sent to
// the served worker: another cluster's job, metadata nested in another
// chk-<n>/ or in another job's or cluster's directory, a savepoint naming
// another tenant's metadata or another program's object (with a wrong
// checksum, or the right one), an invalid identity. It names the standing
// epoch, not its owner: the leader itself never sends these.
func (g *generator) adversarialRequest() []step {
	job := g.job()
	st := g.state(job)
	epoch := max(st.Epoch, 1)
	req := request(job, epoch, g.nextCheckpoint(job), false, g.w.inc[job].n)
	req.Owner = intruder
	switch g.r.IntN(6) {
	case 0:
		// job may be the peer's: the served worker must refuse it.
		return g.trigger(served, "an adversary", req, false)
	case 1:
		req.MetadataKey = req.ExclusivePrefix + fmt.Sprintf("chk-%d/_metadata", req.Checkpoint+1)
		return g.trigger(served, "an adversary (nested metadata)", req, false)
	case 2, 3:
		// Another tenant's checkpoint as often as one of the served cluster.
		owner := g.job()
		if g.r.IntN(2) == 0 {
			owner = jobs[len(jobs)-1]
		}
		other, ok := pick(g, g.withFiles(owner, false))
		if !ok {
			return nil
		}
		req.MetadataKey, req.MetadataSHA256 = other.req.MetadataKey, other.req.MetadataSHA256
		if req.Savepoint = g.r.IntN(3) > 0; req.Savepoint {
			req.ExclusivePrefix = ""
			if g.r.IntN(2) == 0 {
				req.MetadataSHA256 = strings.Repeat("0", 64)
			}
		}
		return g.trigger(served, "an adversary (another checkpoint's metadata)", req, false)
	case 4:
		key := "other-app/secrets/" + fmt.Sprint(g.r.IntN(3))
		req.Savepoint, req.ExclusivePrefix, req.MetadataKey, req.MetadataSHA256 = true, "", key, strings.Repeat("0", 64)
		return append([]step{writeStep{key: key}}, g.trigger(served, "an adversary (savepoint naming another program's object)", req, false)...)
	}
	if g.r.IntN(2) == 0 {
		req.Checkpoint = 0
	} else {
		req.Epoch = 0
	}
	return g.trigger(served, "an adversary (invalid identity)", req, false)
}

func (g *generator) advance() []step {
	f, ok := pick(g, g.live())
	if !ok {
		return nil
	}
	return []step{advanceStep{fin: f.id, fault: g.fault()}}
}

func (g *generator) crash() []step {
	var first []*fin
	for _, f := range g.live() {
		if f.firstTask() {
			first = append(first, f)
		}
	}
	f, ok := pick(g, first)
	if !ok {
		return nil
	}
	return []step{crashStep{fin: f.id}}
}

// zombie replays an attempt a fence covers (or, now and then, one it
// does not, which may land: that is a republish, not a zombie).
func (g *generator) zombie() []step {
	var fenced []*fin
	for _, id := range g.w.order {
		if f := g.w.fins[id]; f.handleKey != "" && f.attempts > 0 {
			fenced = append(fenced, f)
		}
	}
	f, ok := pick(g, fenced)
	if !ok {
		return nil
	}
	return []step{zombieStep{fin: f.id, attempt: 1 + uint32(g.r.IntN(int(f.attempts)))}}
}

// claim: a new leader (usually), or a stale or rival claimant; now and
// then sent to the served worker for another cluster's job.
func (g *generator) claim() []step {
	job := g.job()
	st := g.state(job)
	on := job.Cluster
	if g.r.IntN(10) == 0 {
		on = served
	}
	epoch := st.Epoch + 1
	switch n := g.r.IntN(10); {
	case n == 0 && st.Epoch > 0:
		epoch = st.Epoch
	case n == 1 && st.Epoch > 1:
		epoch = st.Epoch - 1
	}
	owner := leader(epoch)
	if g.r.IntN(10) == 0 {
		owner = "rival-" + fmt.Sprint(epoch) // a second claimant of the same number
	}
	return []step{claimStep{on: on, job: job, epoch: epoch, owner: owner}}
}

// report wakes a job's coordinator with a finalization's report: of the
// standing epoch, another, or one nobody claimed; now and then a
// coordinator of another cluster's job started on the served worker.
func (g *generator) report() []step {
	job := g.job()
	on := job.Cluster
	if g.r.IntN(8) == 0 {
		on = served
	}
	epoch := g.state(job).Epoch
	switch g.r.IntN(6) {
	case 0:
		epoch += 50
	case 1:
		if f, ok := pick(g, g.withFiles(job, false)); ok {
			epoch = f.req.Epoch
		}
	}
	return []step{reportStep{on: on, job: job, epoch: max(epoch, 1), fault: g.fault()}}
}

// drain runs a worker's background retention of a job: mostly one its
// publishes handed over, now and then any job on any worker (a retry
// after a failed pass, a pass that read the store before a publish).
func (g *generator) drain() []step {
	var queued []coordKey
	for _, on := range clusters {
		for job := range g.w.workers[on].handed {
			queued = append(queued, coordKey{worker: on, job: job})
		}
	}
	slices.SortFunc(queued, func(a, b coordKey) int { return strings.Compare(a.worker+a.job.String(), b.worker+b.job.String()) })
	k, ok := pick(g, queued)
	if !ok || g.r.IntN(6) == 0 {
		job := g.job()
		k = coordKey{worker: job.Cluster, job: job}
	}
	return []step{drainStep{on: k.worker, job: k.job, fault: g.fault()}}
}

func (g *generator) remove() []step {
	var pending []coordKey
	for _, k := range sortedKeys(g.w.coords) {
		if g.w.coords[k].pending != nil {
			pending = append(pending, k)
		}
	}
	k, ok := pick(g, pending)
	if !ok {
		return nil
	}
	return []step{removeStep{on: k.worker, job: k.job, fault: g.fault()}}
}

// subsume starts a SubsumeCheckpoint on the served worker for a published
// reference: another cluster's under its standing claim, or one of the
// served cluster's under a stale epoch or the standing epoch under
// another owner.
func (g *generator) subsume() []step {
	job := g.job()
	snap := g.w.snapshot[job]
	var refs []stores.Entry
	for _, e := range snap.sorted() {
		if e.Reference != nil {
			refs = append(refs, e)
		}
	}
	e, ok := pick(g, refs)
	if !ok {
		return nil
	}
	epoch, owner := snap.state.Epoch, snap.state.Owner
	switch {
	case job.Cluster != served:
	case g.r.IntN(2) == 0:
		owner = intruder
	case epoch < 2:
		return nil
	default:
		epoch--
		owner = leader(epoch)
	}
	req := workflows.SubsumeRequest{CheckpointID: stores.CheckpointID{JobID: job, Checkpoint: e.Checkpoint}, Epoch: epoch, Owner: owner, HandleKey: e.Reference.Handle}
	return []step{subsumeStep{on: served, req: req}}
}

func (g *generator) retire() []step {
	job := g.job()
	st := g.state(job)
	if st.Epoch == 0 {
		return nil
	}
	epoch := st.Epoch
	owner := leader(epoch)
	switch n := g.r.IntN(8); {
	case n == 0 && epoch > 1:
		epoch--
		owner = leader(epoch)
	case n == 1:
		owner = intruder
	}
	return []step{retireStep{on: job.Cluster, job: job, epoch: epoch, owner: owner, discard: g.r.IntN(2) == 0}}
}

// reconcile runs the reconciler: on each cluster's own worker with
// settings an operator may choose, or on the served worker started with a
// carry anyone can write (any jobs, any cutoffs, in the future too).
func (g *generator) reconcile() []step {
	cluster, _ := pick(g, clusters)
	durations := []time.Duration{0, time.Second, 10 * time.Minute, time.Hour, 24 * time.Hour}
	req := contract.ReconcileRequest{Cluster: cluster, Apply: g.r.IntN(5) > 0, QuarantineDangling: g.r.IntN(2) == 0,
		Grace: contract.Duration(durations[g.r.IntN(4)]), TombstoneTTL: contract.Duration(durations[1+g.r.IntN(4)])}
	s := reconcileStep{on: cluster, req: req}
	if g.r.IntN(4) == 0 {
		s.on, s.req.Cluster = served, served
		s.carry = &carried{grace: durations[g.r.IntN(4)] - time.Hour, tombstoneTTL: durations[g.r.IntN(4)] - time.Hour}
		for _, j := range jobs {
			if g.r.IntN(2) == 0 {
				s.carry.jobs = append(s.carry.jobs, j)
			}
		}
	}
	return []step{s}
}

// reuse is a job-ID reuse, as Flink's application mode does it: retire
// (retaining or discarding), then a new leader claims the job ID again (its
// checkpoints then start over at 1): half the time at once (now and then
// after one attempt of the retirement's discard), a resubmission
// right after a cancel (now and then followed by a day and a reconciler
// run that collects past the TTL), else once time has passed and the
// reconciler has collected and forgotten the job.
func (g *generator) reuse() []step {
	job := g.job()
	st := g.state(job)
	if st.Owner == "" || st.Retired {
		return nil
	}
	retire := retireStep{on: job.Cluster, job: job, epoch: st.Epoch, owner: st.Owner, discard: g.r.IntN(2) == 0}
	claim := claimStep{on: job.Cluster, job: job, epoch: st.Epoch + 1, owner: leader(st.Epoch + 1)}
	ttl := []time.Duration{time.Second, time.Hour}[g.r.IntN(2)]
	collect := reconcileStep{on: job.Cluster, req: contract.ReconcileRequest{Cluster: job.Cluster, Apply: true, Grace: contract.Duration(time.Hour), TombstoneTTL: contract.Duration(ttl)}}
	switch g.r.IntN(4) {
	case 0:
		return []step{retire, claim}
	case 1:
		// The claim lands while the retirement's discard may still wait
		// on a finalization (discardRetiredStep).
		return []step{retire, discardRetiredStep{key: coordKey{worker: job.Cluster, job: job}, fault: g.fault()}, claim}
	case 2:
		return []step{retire, claim, clockStep{d: 25 * time.Hour}, collect}
	}
	return []step{retire, clockStep{d: 2 * time.Hour}, collect, claim}
}

func (g *generator) clock() []step {
	return []step{clockStep{d: []time.Duration{2 * time.Second, 2 * time.Hour, 25 * time.Hour}[g.r.IntN(3)]}}
}

func (g *generator) restore() []step {
	job := g.job()
	return []step{restoreStep{on: job.Cluster, job: job}}
}

// copyRequest: anyone in the namespace starts a request a history shows,
// unchanged, under a workflow ID of its choosing (the worker never reads
// the ID), or as a new run of the ID once its execution closed (the ID
// reuse policy is a start option): two executions of one token.
func (g *generator) copyRequest() []step {
	job := g.job()
	var all []*fin
	for _, id := range g.w.order {
		if f := g.w.fins[id]; f.req.CheckpointID().JobID == job {
			all = append(all, f)
		}
	}
	f, ok := pick(g, all)
	if !ok {
		return nil
	}
	s := g.triggerStep(job.Cluster, fmt.Sprintf("a copy of F%d's request", f.id), f.req, false)
	s.req.MaxPublishAttempts = f.req.MaxPublishAttempts
	st := g.state(job)
	s.impersonates = st.Claimed(f.req.Epoch) && st.Owner == f.req.Owner
	s.workflowID = fmt.Sprintf("copy-%d", s.fin)
	switch {
	case f.ended() && g.r.IntN(2) == 0:
		s.workflowID = f.req.WorkflowID() // a new run of the closed ID
	case !f.ended() && !f.copied && g.r.IntN(3) == 0:
		// The conflict policy "terminate existing": the running execution
		// ends where it stands and the copy takes its ID.
		s.workflowID, s.terminates = f.req.WorkflowID(), true
	}
	return []step{s}
}

// release: an operator lets go of kept state the reconciler reports
// (finalizer-worker release <handle-key>): a retained record or an
// abandoned finalization's mark. Such state becomes the reconciler's to
// discard after its grace; a savepoint's data stays the operator's either
// way.
func (g *generator) release() []step {
	job := g.job()
	var kept []stores.Entry
	for _, e := range g.w.snapshot[job].sorted() {
		if e.Tombstone != nil && e.Tombstone.Kept() {
			kept = append(kept, e)
		}
	}
	var keys []string
	for _, e := range kept {
		for _, id := range g.w.order {
			if f := g.w.fins[id]; f.token() == e.Tombstone.Token && f.handleKey != "" {
				keys = append(keys, f.handleKey)
				break
			}
		}
	}
	for _, id := range g.w.order {
		if f := g.w.fins[id]; f.abandoned && f.req.CheckpointID().JobID == job {
			keys = append(keys, f.handleKey)
		}
	}
	key, ok := pick(g, keys)
	if !ok {
		return nil
	}
	return []step{releaseStep{handleKey: key}}
}

// abandon: an operator abandons a finalization that verifies or waits
// visible as Verifying.
func (g *generator) abandon() []step {
	var verifying []*fin
	for _, id := range g.w.order {
		if f := g.w.fins[id]; !f.ended() && (f.phase == phaseVerify || f.parked) {
			verifying = append(verifying, f)
		}
	}
	f, ok := pick(g, verifying)
	if !ok {
		return nil
	}
	return []step{abandonStep{fin: f.id}}
}
