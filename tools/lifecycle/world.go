package lifecycle

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/stores/embedded"
)

// world is everything one schedule runs against: the real embedded store
// and a memory bucket both workers share, the workers, and what the
// simulation knows that the store does not (the finalizations it started
// and how they ended, the files its job managers wrote, every token the
// store ever showed published). One world per worker goroutine is reused
// across schedules: reset opens a fresh store file and bucket.
type world struct {
	dir   string
	seq   int
	store *embedded.Store
	// states is the bucket as the checker reads it, past every recorder.
	states *blobstate.Store
	bucket *blob.Bucket
	// workers by the cluster each serves; the served one is under test.
	workers map[string]*worker
	// objects maps the SHA-256 of every object a job manager wrote to its
	// key; files lists the objects written under each prefix.
	objects map[string]string
	files   map[string][]string
	// written: the jobs the store's mutating calls named since the
	// checker last read them; changes counts the bucket's deletes and
	// overwrites. The checker reads again only what may have changed
	// (written, checked), and resolved maps a handle key to the changes at
	// which its reference last resolved, plus one.
	written          map[stores.JobID]bool
	changes, checked uint64
	resolved         map[string]uint64
	// clock is how far simulated time runs ahead of the wall clock: the
	// reconciler's "now" (the stores stamp tombstones with the wall clock).
	clock time.Duration

	fins   map[int]*fin
	order  []int
	byWfID map[string]*fin
	coords map[coordKey]*coordinator
	// retiring are the discarding retirements whose DiscardRetired is
	// still to finish, by the epoch that retired the job.
	retiring map[coordKey]uint64
	// inc is each job's incarnation as the store's history shows it.
	inc map[stores.JobID]*incarnation
	// published: every token each key ever showed published (its
	// reference, or the tombstone that removed it).
	published map[stores.CheckpointID]map[string]bool
	// agedOut: the tokens whose tombstone went at the TTL floor.
	agedOut map[stores.CheckpointID]map[string]bool
	claims  []claimSeen
	// snapshot is what the store held after the last step.
	snapshot map[stores.JobID]jobSnapshot
	// found: the violations of the schedule so far; settled: what the
	// settling at its end did.
	found   []violation
	settled []string
	// seen counts what the schedule reached (outcomes, removals, repairs,
	// reuses), so that a run shows what it explored.
	seen map[string]int
}

// incarnation is one life of a job ID: its number and the checkpoint IDs
// its job managers used (they never repeat while its HA data lives).
type incarnation struct {
	n    int
	used map[uint64]bool
	// claims are the epochs claimed in this incarnation, by owner: only a
	// job manager that claimed an epoch takes checkpoints under it.
	claims map[uint64]string
}

type jobSnapshot struct {
	state   stores.JobState
	entries map[uint64]stores.Entry
}

// sorted are the snapshot's entries in checkpoint order, so that what the
// checker reports and the generator picks never depends on map order.
func (s jobSnapshot) sorted() []stores.Entry {
	out := make([]stores.Entry, 0, len(s.entries))
	for _, e := range s.entries {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b stores.Entry) int { return cmp.Compare(a.Checkpoint, b.Checkpoint) })
	return out
}

func newWorld(dir string) (*world, error) {
	w := &world{dir: dir, written: map[stores.JobID]bool{}}
	w.workers = map[string]*worker{}
	w.objects = map[string]string{}
	for _, c := range clusters {
		wk, err := newWorker(c, finalizations{w}, w.now, w.objects, w.written, &w.changes)
		if err != nil {
			return nil, err
		}
		w.workers[c] = wk
	}
	return w, w.reset()
}

// reset starts a schedule on an empty store and bucket. A fresh bbolt
// file on the caller's directory (tmpfs where there is one) costs less
// than deleting every key of the last schedule.
func (w *world) reset() error {
	if err := w.closeStores(); err != nil {
		return err
	}
	w.seq++
	path := filepath.Join(w.dir, fmt.Sprintf("store-%d.db", w.seq))
	st, err := embedded.Open(path)
	if err != nil {
		return err
	}
	w.store = st
	w.bucket = memblob.OpenBucket(nil)
	w.states = blobstate.OverBucket(w.bucket, "mem://")
	for _, wk := range w.workers {
		wk.refs.inner, wk.states.inner = st, w.states
		wk.tenant.foreign = nil
		clear(wk.handed)
	}
	clear(w.objects)
	w.files = map[string][]string{}
	w.resolved = map[string]uint64{}
	// Nothing is known of the fresh store and bucket until read.
	w.rereadAll()
	w.changes, w.checked = 1, 0
	w.clock = 0
	w.fins, w.order, w.byWfID = map[int]*fin{}, nil, map[string]*fin{}
	w.coords = map[coordKey]*coordinator{}
	w.retiring = map[coordKey]uint64{}
	w.inc = map[stores.JobID]*incarnation{}
	for _, j := range jobs {
		w.inc[j] = &incarnation{used: map[uint64]bool{}, claims: map[uint64]string{}}
	}
	w.published = map[stores.CheckpointID]map[string]bool{}
	w.agedOut = map[stores.CheckpointID]map[string]bool{}
	w.claims = nil
	w.snapshot = map[stores.JobID]jobSnapshot{}
	w.found, w.settled = nil, nil
	w.seen = map[string]int{}
	for _, wk := range w.workers {
		wk.seen, wk.orphans = w.seen, nil
	}
	return nil
}

func (w *world) closeStores() error {
	if w.store == nil {
		return nil
	}
	path := filepath.Join(w.dir, fmt.Sprintf("store-%d.db", w.seq))
	err := w.store.Close()
	w.store = nil
	if rerr := os.Remove(path); err == nil {
		err = rerr
	}
	if cerr := w.bucket.Close(); err == nil {
		err = cerr
	}
	return err
}

// now is the simulated time.
func (w *world) now() time.Time { return time.Now().Add(w.clock) }

// write puts an object into the bucket as a job manager writes its files,
// past every recorder.
func (w *world) write(ctx context.Context, key string, data []byte) error {
	if w.exists(ctx, key) {
		w.changes++ // an overwrite may break a checksum
	}
	if err := w.bucket.WriteAll(ctx, key, data, nil); err != nil {
		return fmt.Errorf("write %s: %w", key, err)
	}
	w.objects[sha256Hex(data)] = key
	return nil
}

func (w *world) exists(ctx context.Context, key string) bool {
	ok, err := w.bucket.Exists(ctx, key)
	return err == nil && ok
}

// rereadAll has the next observe read every job.
func (w *world) rereadAll() {
	clear(w.written)
	for _, j := range jobs {
		w.written[j] = true
	}
}

// observe reads the state and keys of each job written since it last
// did, records the tokens they show published and the incarnations they
// begin.
func (w *world) observe(ctx context.Context) error {
	for _, j := range jobs {
		if !w.written[j] {
			continue
		}
		delete(w.written, j)
		st, err := w.store.ReadJob(ctx, j)
		if err != nil {
			return err
		}
		all, err := w.store.ListEntries(ctx, j)
		if err != nil {
			return err
		}
		snap := jobSnapshot{state: st, entries: make(map[uint64]stores.Entry, len(all))}
		for _, e := range all {
			snap.entries[e.Checkpoint] = e
			if tok := publishedToken(e); tok != "" {
				id := stores.CheckpointID{JobID: j, Checkpoint: e.Checkpoint}
				if w.published[id] == nil {
					w.published[id] = map[string]bool{}
				}
				w.published[id][tok] = true
			}
		}
		w.checkCollected(j, snap)
		if prev := w.snapshot[j].state; st.ForgottenEpoch > prev.ForgottenEpoch {
			// Forgotten: the next claim starts a new life of the job ID,
			// whose checkpoint IDs start over. A resubmission claimed at
			// once finds the old life's keys still in place, its HA data
			// living: its IDs continue above them (the watermark), as
			// Flink's do.
			inc := w.inc[j]
			inc.n++
			w.seen["job IDs forgotten"]++
			inc.used, inc.claims = map[uint64]bool{}, map[uint64]string{}
			if st.Owner != "" {
				w.seen["job IDs claimed again at once after a retirement"]++
				inc.used[min(st.Watermark, math.MaxUint32-1)] = true
			}
		}
		w.snapshot[j] = snap
	}
	return nil
}

// publishedToken is the token an entry shows was published, "" if none.
func publishedToken(e stores.Entry) string {
	switch {
	case e.Reference != nil:
		return e.Reference.Token
	case e.Tombstone != nil && e.Tombstone.Removed():
		return e.Tombstone.Token
	}
	return ""
}

// entry is what the last snapshot holds at a checkpoint's key.
func (w *world) entry(id stores.CheckpointID) stores.Entry {
	if e, ok := w.snapshot[id.JobID].entries[id.Checkpoint]; ok {
		return e
	}
	return stores.Entry{Checkpoint: id.Checkpoint}
}
