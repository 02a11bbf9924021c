package kubernetes

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

var _ stores.Inventory = (*Store)(nil)

// ListJobs implements stores.Inventory: the ConfigMaps labelled with the
// cluster, listed with quorum reads. A ConfigMap that carries this store's
// labels under a name that is not its job's was not written by this store:
// the listing is refused with stores.ErrCorruptState, so the reconciler
// reports it, instead of guessing it into a job or leaving it out unseen.
// A forgotten job's emptied ConfigMap is not listed.
func (s *Store) ListJobs(ctx context.Context, cluster string) ([]stores.JobID, error) {
	if err := stores.ValidateCluster(cluster); err != nil {
		return nil, err
	}
	op := fmt.Sprintf("list jobs of cluster %s", cluster)
	if err := s.checkOpen(op); err != nil {
		return nil, err
	}
	selector := labels.SelectorFromSet(labels.Set{LabelManagedBy: ManagedBy, LabelCluster: cluster}).String()
	var jobs []stores.JobID
	cont := ""
	for {
		page, err := s.list(ctx, selector, cont)
		if err != nil {
			return nil, failRead(op, err)
		}
		for i := range page.Items {
			cm := &page.Items[i]
			job := stores.JobID{Cluster: cluster, Job: cm.Labels[LabelJob]}
			name, err := ConfigMapName(job)
			if err != nil {
				// %v: the label is what the store holds, not the caller's
				// input, so no ErrInvalid (Rejected) in the chain.
				return nil, fmt.Errorf("%s: configmap %s/%s carries this store's labels with job %q: %v: %w",
					op, s.namespace, cm.Name, job.Job, err, stores.ErrCorruptState)
			}
			if name != cm.Name {
				return nil, fmt.Errorf("%s: configmap %s/%s carries this store's labels of job %q, whose ConfigMap is %s: %w",
					op, s.namespace, cm.Name, job.Job, name, stores.ErrCorruptState)
			}
			snap, err := newSnapshot(job, s.namespace, name, cm)
			if err != nil {
				return nil, decodeFailure(op, err)
			}
			entries, err := snap.entries()
			if err != nil {
				return nil, decodeFailure(op, err)
			}
			if stores.JobKnown(snap.state, len(entries)) {
				jobs = append(jobs, job)
			}
		}
		if cont = page.Continue; cont == "" {
			return stores.SortJobs(jobs), nil
		}
	}
}

// ListEntries implements stores.Inventory: every key of one quorum read.
func (s *Store) ListEntries(ctx context.Context, job stores.JobID) ([]stores.Entry, error) {
	if err := job.Validate(); err != nil {
		return nil, err
	}
	op := fmt.Sprintf("list keys of %s", job)
	snap, err := s.snapshotOf(ctx, op, job)
	if err != nil {
		return nil, err
	}
	all, err := snap.entries()
	if err != nil {
		return nil, decodeFailure(op, err)
	}
	return all, nil
}

// Quarantine implements stores.Inventory: the tombstone replaces the
// reference in one conditional Update.
func (s *Store) Quarantine(ctx context.Context, id stores.CheckpointID, token string) error {
	return s.retombstone(ctx, fmt.Sprintf("quarantine %s token %q", id, token), id, token, stores.DecideQuarantine)
}

// Release implements stores.ReferenceStore: the retired tombstone replaces
// the kept record in one conditional Update.
func (s *Store) Release(ctx context.Context, id stores.CheckpointID, token string) error {
	return s.retombstone(ctx, fmt.Sprintf("release %s token %q", id, token), id, token, stores.DecideRelease)
}

// retombstone rewrites a key of token as decide says.
func (s *Store) retombstone(ctx context.Context, op string, id stores.CheckpointID, token string,
	decide func(stores.Entry, string, time.Time) (*stores.Entry, error)) error {
	if err := stores.ValidateTokenKey(id, token); err != nil {
		return err
	}
	return s.mutate(ctx, op, id.JobID, serverFits, func(snap *snapshot) (*change, error) {
		cur, err := snap.entry(id.Checkpoint)
		if err != nil {
			return nil, decodeFailure(op, err)
		}
		next, err := decide(cur, token, time.Now())
		if err != nil || next == nil {
			return nil, err
		}
		return &change{put: []stores.Entry{*next}}, nil
	})
}
