package lifecycle

import (
	"context"
	"time"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/stores/embedded"
)

// recordedStore is the HA store as one worker's activities see it: the
// real embedded store, every call noted by the worker's tenant first and
// refused once the worker has died (its lifeline). It is what
// activities.Activities and reconcile.Activities are wired with
// (References, Leadership, Inventory).
type recordedStore struct {
	t     *tenant
	life  *lifeline
	inner *embedded.Store
	// written: the jobs its mutating calls named (the world's set), which
	// the checker reads again; a call of the embedded store changes only
	// the job it names.
	written map[stores.JobID]bool
}

func (s *recordedStore) Publish(ctx context.Context, p stores.Publication) error {
	s.t.job("publish", p.JobID)
	if err := s.life.spend(); err != nil {
		return err
	}
	s.written[p.JobID] = true
	return s.inner.Publish(ctx, p)
}

func (s *recordedStore) Verify(ctx context.Context, id stores.CheckpointID, token string, attempt uint32) (stores.Verdict, error) {
	s.t.job("verify", id.JobID)
	if err := s.life.spend(); err != nil {
		return stores.VerdictUnknown, err
	}
	s.written[id.JobID] = true
	return s.inner.Verify(ctx, id, token, attempt)
}

func (s *recordedStore) Subsume(ctx context.Context, id stores.CheckpointID, epoch uint64) error {
	s.t.job("subsume", id.JobID)
	if err := s.life.spend(); err != nil {
		return err
	}
	s.written[id.JobID] = true
	return s.inner.Subsume(ctx, id, epoch)
}

func (s *recordedStore) CollectSubsumed(ctx context.Context, id stores.CheckpointID, token string) error {
	s.t.job("collect subsumed", id.JobID)
	if err := s.life.spend(); err != nil {
		return err
	}
	s.written[id.JobID] = true
	return s.inner.CollectSubsumed(ctx, id, token)
}

func (s *recordedStore) List(ctx context.Context, job stores.JobID) ([]stores.Entry, error) {
	s.t.job("list", job)
	if err := s.life.spend(); err != nil {
		return nil, err
	}
	return s.inner.List(ctx, job)
}

func (s *recordedStore) Read(ctx context.Context, id stores.CheckpointID) (stores.Entry, error) {
	s.t.job("read", id.JobID)
	if err := s.life.spend(); err != nil {
		return stores.Entry{}, err
	}
	return s.inner.Read(ctx, id)
}

func (s *recordedStore) ReadJob(ctx context.Context, job stores.JobID) (stores.JobState, error) {
	s.t.job("read job", job)
	if err := s.life.spend(); err != nil {
		return stores.JobState{}, err
	}
	return s.inner.ReadJob(ctx, job)
}

func (s *recordedStore) ClaimEpoch(ctx context.Context, job stores.JobID, epoch uint64, owner string) error {
	s.t.job("claim", job)
	if err := s.life.spend(); err != nil {
		return err
	}
	s.written[job] = true
	return s.inner.ClaimEpoch(ctx, job, epoch, owner)
}

func (s *recordedStore) Retire(ctx context.Context, job stores.JobID, epoch uint64, keep bool) error {
	s.t.job("retire", job)
	if err := s.life.spend(); err != nil {
		return err
	}
	s.written[job] = true
	return s.inner.Retire(ctx, job, epoch, keep)
}

func (s *recordedStore) CollectTombstones(ctx context.Context, job stores.JobID, olderThan time.Time) (int, error) {
	s.t.job("collect", job)
	if err := s.life.spend(); err != nil {
		return 0, err
	}
	s.written[job] = true
	return s.inner.CollectTombstones(ctx, job, olderThan)
}

func (s *recordedStore) ListJobs(ctx context.Context, cluster string) ([]stores.JobID, error) {
	s.t.clusterCall("list jobs", cluster, cluster)
	if err := s.life.spend(); err != nil {
		return nil, err
	}
	return s.inner.ListJobs(ctx, cluster)
}

func (s *recordedStore) ListEntries(ctx context.Context, job stores.JobID) ([]stores.Entry, error) {
	s.t.job("list keys", job)
	if err := s.life.spend(); err != nil {
		return nil, err
	}
	return s.inner.ListEntries(ctx, job)
}

func (s *recordedStore) Quarantine(ctx context.Context, id stores.CheckpointID, token string) error {
	s.t.job("quarantine", id.JobID)
	if err := s.life.spend(); err != nil {
		return err
	}
	s.written[id.JobID] = true
	return s.inner.Quarantine(ctx, id, token)
}

// recordedStates is the state bucket as one worker's activities see it:
// the real blob state store, every key noted by the worker's tenant first
// and every call refused once the worker has died
// (activities.States, reconcile.States and reconcile.Handles).
type recordedStates struct {
	t     *tenant
	life  *lifeline
	inner *blobstate.Store
	// changes counts what can break a reference that resolved or remove
	// a file that existed (the world's count: deletes, overwrites).
	changes *uint64
}

func (s *recordedStates) CheckData(ctx context.Context, h blobstate.Handle) error {
	s.t.key("read", h.MetadataKey)
	if err := s.life.spend(); err != nil {
		return err
	}
	return s.inner.CheckData(ctx, h)
}

func (s *recordedStates) Write(ctx context.Context, h blobstate.Handle) (string, error) {
	s.t.key("write", h.Key())
	if err := s.life.spend(); err != nil {
		return "", err
	}
	// Not a change: blobstate never replaces a valid handle with another.
	return s.inner.Write(ctx, h)
}

func (s *recordedStates) ReadKey(ctx context.Context, key string) (blobstate.Handle, error) {
	s.t.key("read", key)
	if err := s.life.spend(); err != nil {
		return blobstate.Handle{}, err
	}
	return s.inner.ReadKey(ctx, key)
}

func (s *recordedStates) Discard(ctx context.Context, h blobstate.Handle) (blobstate.DiscardResult, error) {
	s.t.key("delete", h.Key())
	if !h.Savepoint {
		s.t.key("delete", h.ExclusivePrefix)
	}
	if err := s.life.spend(); err != nil {
		return blobstate.DiscardResult{}, err
	}
	*s.changes++
	return s.inner.Discard(ctx, h)
}

func (s *recordedStates) ObjectURL(key string) string { return s.inner.ObjectURL(key) }

func (s *recordedStates) HandleModTime(ctx context.Context, key string) (time.Time, error) {
	s.t.key("read", key)
	if err := s.life.spend(); err != nil {
		return time.Time{}, err
	}
	return s.inner.HandleModTime(ctx, key)
}

func (s *recordedStates) HandleJobs(ctx context.Context, cluster string) ([]stores.JobID, error) {
	s.t.clusterCall("list handles", cluster, stores.HandlesPrefix+cluster+"/")
	if err := s.life.spend(); err != nil {
		return nil, err
	}
	return s.inner.HandleJobs(ctx, cluster)
}

func (s *recordedStates) ListJobHandles(ctx context.Context, job stores.JobID) (blobstate.Listing, error) {
	s.t.job("list handles", job)
	if err := s.life.spend(); err != nil {
		return blobstate.Listing{}, err
	}
	return s.inner.ListJobHandles(ctx, job)
}

func (s *recordedStates) Mark(ctx context.Context, handleKey string) (blobstate.KeepMark, bool, error) {
	s.t.key("read", handleKey)
	if err := s.life.spend(); err != nil {
		return blobstate.KeepMark{}, false, err
	}
	return s.inner.Mark(ctx, handleKey)
}

func (s *recordedStates) Keep(ctx context.Context, handleKey, reason string, now time.Time) error {
	s.t.key("write", handleKey)
	if err := s.life.spend(); err != nil {
		return err
	}
	return s.inner.Keep(ctx, handleKey, reason, now)
}
