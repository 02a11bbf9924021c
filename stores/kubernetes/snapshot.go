package kubernetes

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// snapshot is a job's ConfigMap as one quorum read returned it, decoded.
type snapshot struct {
	job       stores.JobID
	namespace string
	name      string
	// cm is nil when the ConfigMap does not exist; its resourceVersion is
	// the precondition of the next Update.
	cm    *corev1.ConfigMap
	state stores.JobState
}

func newSnapshot(job stores.JobID, namespace, name string, cm *corev1.ConfigMap) (*snapshot, error) {
	s := &snapshot{job: job, namespace: namespace, name: name, cm: cm}
	if cm == nil {
		return s, nil
	}
	if err := checkOwnership(job, cm); err != nil {
		return nil, err
	}
	if err := checkOwnKeys(cm); err != nil {
		return nil, fmt.Errorf("configmap %s/%s: %w", namespace, name, err)
	}
	state, err := jobStateOf(cm)
	if err != nil {
		return nil, fmt.Errorf("configmap %s/%s: %w", namespace, name, err)
	}
	s.state = state
	return s, nil
}

// checkOwnership refuses a ConfigMap under our name that another job or
// another program wrote (or whose labels were edited): writing into it
// would mix two owners' data, and deciding on it would answer for state
// that is not the job's. It is corrupt state, Unknown, not a rejection: a
// finalization parks, visible, until an operator sorts the name out.
func checkOwnership(job stores.JobID, cm *corev1.ConfigMap) error {
	for k, want := range jobLabels(job) {
		if got, ok := cm.Labels[k]; !ok || got != want {
			return fmt.Errorf("configmap %s/%s is not this job's: label %s=%q, want %q: %w",
				cm.Namespace, cm.Name, k, got, want, stores.ErrCorruptState)
		}
	}
	return nil
}

// checkOwnKeys refuses what another tool left under this store's names: an
// annotation of our prefix this version does not write, or a binary key of
// our key prefix (the store writes Data only). Another tool's own
// annotations and keys stay its business.
func checkOwnKeys(cm *corev1.ConfigMap) error {
	for k := range cm.Annotations {
		if strings.HasPrefix(k, annotationPrefix) && !slices.Contains(stateAnnotations, k) && k != AnnotationStateVersion {
			return fmt.Errorf("annotation %s is not one this store writes: %w", k, stores.ErrCorruptState)
		}
	}
	for k := range cm.BinaryData {
		if strings.HasPrefix(k, KeyPrefix) {
			return fmt.Errorf("binary key %s under the checkpoint key prefix, which this store writes in data only: %w", k, stores.ErrCorruptState)
		}
	}
	return nil
}

// entry returns checkpoint id's entry, Absent when the key is missing.
func (s *snapshot) entry(id uint64) (stores.Entry, error) {
	if s.cm == nil {
		return stores.Entry{Checkpoint: id}, nil
	}
	v, ok := s.cm.Data[checkpointKey(id)]
	if !ok {
		return stores.Entry{Checkpoint: id}, nil
	}
	e, err := stores.DecodeEntry(id, []byte(v))
	if err != nil {
		return stores.Entry{}, fmt.Errorf("configmap %s/%s: %w", s.namespace, s.name, err)
	}
	return e, nil
}

// entries returns every checkpoint key's entry, references and tombstones,
// in checkpoint order (numeric: keys of IDs of 20 digits sort differently).
func (s *snapshot) entries() ([]stores.Entry, error) {
	if s.cm == nil {
		return nil, nil
	}
	var out []stores.Entry
	for key, v := range s.cm.Data {
		id, ours, err := parseCheckpointKey(key)
		if err != nil {
			return nil, fmt.Errorf("configmap %s/%s: %w", s.namespace, s.name, err)
		}
		if !ours {
			continue
		}
		e, err := stores.DecodeEntry(id, []byte(v))
		if err != nil {
			return nil, fmt.Errorf("configmap %s/%s: %w", s.namespace, s.name, err)
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b stores.Entry) int {
		switch {
		case a.Checkpoint < b.Checkpoint:
			return -1
		case a.Checkpoint > b.Checkpoint:
			return 1
		}
		return 0
	})
	return out, nil
}

// change is what one decision writes: all of it in one Create or Update.
type change struct {
	state *stores.JobState // nil: unchanged
	put   []stores.Entry
	drop  []uint64
}

// apply returns the object to send: the ConfigMap as read with the change
// applied and its resourceVersion kept as the precondition, or a new one.
// It fails with stores.ErrTooLarge, before anything is sent, when the
// result breaks the call's size rule.
func (s *snapshot) apply(c change, fits sizeRule) (*corev1.ConfigMap, error) {
	var obj *corev1.ConfigMap
	if s.cm == nil {
		obj = &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: s.name, Namespace: s.namespace, Labels: jobLabels(s.job)},
		}
		setJobState(obj, s.state)
	} else {
		obj = s.cm.DeepCopy()
		// Nil managedFields keep the server's; sending them back only costs bytes.
		obj.ManagedFields = nil
		obj.Labels = maps.Clone(obj.Labels)
	}
	if c.state != nil {
		setJobState(obj, *c.state)
	}
	if obj.Data == nil && len(c.put) > 0 {
		obj.Data = map[string]string{}
	}
	for _, id := range c.drop {
		delete(obj.Data, checkpointKey(id))
	}
	for _, e := range c.put {
		b, err := stores.EncodeEntry(e, MaxConfigMapBytes)
		if err != nil {
			return nil, fmt.Errorf("checkpoint %d: %w", e.Checkpoint, err)
		}
		obj.Data[checkpointKey(e.Checkpoint)] = string(b)
	}
	if err := fits(obj); err != nil {
		return nil, fmt.Errorf("configmap %s/%s: %w", s.namespace, s.name, err)
	}
	return obj, nil
}
