package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// The checker's own tests: each property fails when the store or the
// bucket is made to break it behind every party's back, and a schedule
// replays exactly.

func newTestWorld(t *testing.T) *world {
	t.Helper()
	dir, err := os.MkdirTemp(tmpfs(), "lifecycle-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	w, err := newWorld(dir)
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.closeStores() })
	return w
}

// vandalStep deletes objects past every recorder: what no party of the
// protocol may do, so the checker must see it.
type vandalStep struct{ keys []string }

func (s vandalStep) String() string { return fmt.Sprintf("a vandal deletes %v", s.keys) }

func (s vandalStep) run(ctx context.Context, w *world) string {
	for _, k := range s.keys {
		if err := w.bucket.Delete(ctx, k); err != nil {
			return err.Error()
		}
	}
	w.changes++
	return ""
}

var j1 = stores.JobID{Cluster: served, Job: "j1"}

func leaderSteps() []step {
	req := request(j1, 1, 1, false, 0)
	return []step{
		claimStep{on: served, job: j1, epoch: 1, owner: "leader-1"},
		checkpointStep{fin: 1, on: served, role: "the leader", req: req, write: true},
	}
}

func failsWith(t *testing.T, w *world, steps []step, property string) {
	t.Helper()
	_, f, err := replay(context.Background(), w, steps, "")
	require.NoError(t, err)
	require.NotNil(t, f, "the checker saw nothing wrong")
	require.Equal(t, property, f.v.property, f.v.String())
}

func TestCheckerSeesALeadersDirectoryDeleted(t *testing.T) {
	w := newTestWorld(t)
	steps := append(leaderSteps(), vandalStep{keys: []string{request(j1, 1, 1, false, 0).MetadataKey}})
	failsWith(t, w, steps, propDirectory)
}

func TestCheckerSeesAPublishedReferenceDangle(t *testing.T) {
	w := newTestWorld(t)
	steps := append(leaderSteps(), advanceStep{fin: 1}, advanceStep{fin: 1})
	_, f, err := replay(context.Background(), w, steps, "")
	require.NoError(t, err)
	require.Nil(t, f)
	require.Equal(t, contract.Published, w.fins[1].result, "persisted and published")
	failsWith(t, w, append(steps, vandalStep{keys: []string{request(j1, 1, 1, false, 0).ExclusivePrefix + "data-0"}}), propI1)
}

func TestCheckerSeesSharedStateDeleted(t *testing.T) {
	w := newTestWorld(t)
	failsWith(t, w, append(leaderSteps(), vandalStep{keys: []string{sharedKey(j1)}}), propKept)
}

// touchStep reads another tenant's job through the served worker's
// recorder, as an activity that ignores the layout would.
type touchStep struct{}

func (touchStep) String() string { return "the served worker's store reads the peer's job" }

func (touchStep) run(ctx context.Context, w *world) string {
	_, err := w.workers[served].refs.ReadJob(ctx, stores.JobID{Cluster: peer, Job: "j1"})
	return fmt.Sprint(err)
}

func TestCheckerSeesAnotherTenantRead(t *testing.T) {
	failsWith(t, newTestWorld(t), []step{touchStep{}}, propTenant)
}

func TestLeakedDigestIsSeen(t *testing.T) {
	tn := &tenant{cluster: served, objects: map[string]string{sha256Hex([]byte("x")): "flink/c2/checkpoints/j1/chk-1/_metadata"}}
	tn.leak("metadata has SHA-256 "+sha256Hex([]byte("x")), `{"metadataSha256":"`+sha256Hex([]byte("y"))+`"}`)
	require.Len(t, tn.drain(), 1)
	tn.leak("metadata has SHA-256 "+sha256Hex([]byte("x")), `{"metadataSha256":"`+sha256Hex([]byte("x"))+`"}`)
	require.Empty(t, tn.drain(), "the request carried that digest")
}

func TestSchedulesReplayExactly(t *testing.T) {
	w := newTestWorld(t)
	ctx := context.Background()
	for seed := uint64(1); seed <= 20; seed++ {
		first, n, err := generate(ctx, w, seed)
		require.NoError(t, err)
		again, m, err := generate(ctx, w, seed)
		require.NoError(t, err)
		require.Equal(t, n, m, "seed %d", seed)
		require.Equal(t, first == nil, again == nil, "seed %d", seed)
		if first == nil {
			continue
		}
		require.Equal(t, fmt.Sprint(first.steps), fmt.Sprint(again.steps), "seed %d", seed)
		_, replayed, err := replay(ctx, w, first.steps, first.v.property)
		require.NoError(t, err)
		require.NotNil(t, replayed, "seed %d: the generated schedule fails when replayed", seed)
		require.Equal(t, first.at, replayed.at, "seed %d", seed)
	}
}

// fenceStep fences a key for a token nobody finalizes, past every
// worker: what no request of another epoch may do to a standing leader.
type fenceStep struct{ id stores.CheckpointID }

func (s fenceStep) String() string { return fmt.Sprintf("a vandal fences %s", s.id) }

func (s fenceStep) run(ctx context.Context, w *world) string {
	_, err := w.store.Verify(ctx, s.id, "vandal", 1)
	w.written[s.id.JobID] = true
	return fmt.Sprint(err)
}

func TestCheckerSeesALeaderFencedOut(t *testing.T) {
	w := newTestWorld(t)
	steps := append(leaderSteps(), fenceStep{id: stores.CheckpointID{JobID: j1, Checkpoint: 1}})
	for range 4 {
		steps = append(steps, advanceStep{fin: 1})
	}
	failsWith(t, w, steps, propFencedOut)
}

// collectStep collects a job's tombstones with a cutoff in the future,
// past every worker and its floors.
type collectStep struct{ job stores.JobID }

func (s collectStep) String() string {
	return fmt.Sprintf("a vandal collects the tombstones of %s", s.job)
}

func (s collectStep) run(ctx context.Context, w *world) string {
	n, err := w.store.CollectTombstones(ctx, s.job, w.now().Add(time.Hour))
	w.written[s.job] = true
	return fmt.Sprint(n, err)
}

func TestCheckerSeesATombstoneCollectedEarly(t *testing.T) {
	w := newTestWorld(t)
	steps := append(leaderSteps(), advanceStep{fin: 1}, advanceStep{fin: 1}, advanceStep{fin: 1}, // persisted, published
		retireStep{on: served, job: j1, epoch: 1, owner: leader(1), discard: true}, collectStep{job: j1})
	failsWith(t, w, steps, propCollect)
}

// releaseAndCollectStep releases a job's kept record and collects it in
// the same step: what no party of the product may do (only an operator
// releases, and the collection takes the released record only past the
// TTL floor).
type releaseAndCollectStep struct{ id stores.CheckpointID }

func (s releaseAndCollectStep) String() string {
	return fmt.Sprintf("a vandal releases the kept record of %s and collects it", s.id)
}

func (s releaseAndCollectStep) run(ctx context.Context, w *world) string {
	err := w.store.Release(ctx, s.id, contract.Token(s.id, 1))
	n, cerr := w.store.CollectTombstones(ctx, s.id.JobID, w.now().Add(time.Hour))
	w.written[s.id.JobID] = true
	return fmt.Sprint(err, n, cerr)
}

func TestCheckerSeesAKeptRecordCollected(t *testing.T) {
	w := newTestWorld(t)
	steps := append(leaderSteps(), advanceStep{fin: 1}, advanceStep{fin: 1}, advanceStep{fin: 1}, // persisted, published
		retireStep{on: served, job: j1, epoch: 1, owner: leader(1)},
		releaseAndCollectStep{id: stores.CheckpointID{JobID: j1, Checkpoint: 1}})
	failsWith(t, w, steps, propKept)
}

// earlyCollectStep subsumes a key and collects its subsumed tombstone at
// once, past every worker: what a retention pass may do only once the
// finalization that published it has ended.
type earlyCollectStep struct {
	id    stores.CheckpointID
	epoch uint64
}

func (s earlyCollectStep) String() string {
	return fmt.Sprintf("a vandal subsumes %s and collects its tombstone", s.id)
}

func (s earlyCollectStep) run(ctx context.Context, w *world) string {
	e, err := w.store.Read(ctx, s.id)
	if err != nil || e.Reference == nil {
		return fmt.Sprint("nothing published: ", err)
	}
	err = errors.Join(w.store.Subsume(ctx, s.id, s.epoch), w.store.CollectSubsumed(ctx, s.id, e.Reference.Token))
	w.written[s.id.JobID] = true
	return fmt.Sprint(err)
}

func TestCheckerSeesASubsumedTombstoneCollectedWhileItsFinalizationRuns(t *testing.T) {
	w := newTestWorld(t)
	steps := append(leaderSteps(), advanceStep{fin: 1}, advanceStep{fin: 1, fault: faultLost}, // persisted, published, reply lost
		earlyCollectStep{id: stores.CheckpointID{JobID: j1, Checkpoint: 1}, epoch: 1})
	failsWith(t, w, steps, propCollect)

	// Its verify then finds the key free: the answer is wrong too.
	for range 4 {
		steps = append(steps, advanceStep{fin: 1})
	}
	_, f, err := replay(context.Background(), w, steps, propI7)
	require.NoError(t, err)
	require.NotNil(t, f, "the checker saw no untruthful answer")
}
