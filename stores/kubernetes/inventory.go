package kubernetes

import (
	"context"
	"fmt"

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
			return nil, fmt.Errorf("%s: %w", op, failRead(err))
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
				return nil, fmt.Errorf("%s: %w", op, err)
			}
			entries, err := snap.entries()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", op, err)
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
