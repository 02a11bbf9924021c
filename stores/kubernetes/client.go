package kubernetes

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// The three requests the store sends. Each is sent exactly once:
// MaxRetries(0) turns off client-go's resend after 429/5xx with
// Retry-After, which could turn our own applied write into a 409.

// get reads the ConfigMap with a quorum read: no resourceVersion parameter,
// so the API server reads etcd, never its watch cache (which "0" would
// allow). It returns nil when the ConfigMap does not exist.
func (s *Store) get(ctx context.Context, name string) (*corev1.ConfigMap, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout)
	defer cancel()
	cm := &corev1.ConfigMap{}
	err := s.rc.Get().Namespace(s.namespace).Resource("configmaps").Name(name).
		MaxRetries(0).Do(ctx).Into(cm)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("get configmap %s/%s: %w", s.namespace, name, err)
	}
	return cm, nil
}

// create creates the ConfigMap; it fails with AlreadyExists if anyone
// created it since our read.
func (s *Store) create(ctx context.Context, cm *corev1.ConfigMap) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout)
	defer cancel()
	err := s.rc.Post().Namespace(s.namespace).Resource("configmaps").
		Param("fieldManager", fieldManager).MaxRetries(0).Body(cm).Do(ctx).Error()
	if err != nil {
		return fmt.Errorf("create configmap %s/%s: %w", s.namespace, cm.Name, err)
	}
	return nil
}

// update replaces the ConfigMap if its resourceVersion is still the one
// cm carries (the one we read), and fails with 409 Conflict otherwise.
func (s *Store) update(ctx context.Context, cm *corev1.ConfigMap) error {
	if cm.ResourceVersion == "" {
		// An Update without resourceVersion would be unconditional.
		return fmt.Errorf("update configmap %s/%s: refusing an unconditional update", s.namespace, cm.Name)
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout)
	defer cancel()
	err := s.rc.Put().Namespace(s.namespace).Resource("configmaps").Name(cm.Name).
		Param("fieldManager", fieldManager).MaxRetries(0).Body(cm).Do(ctx).Error()
	if err != nil {
		return fmt.Errorf("update configmap %s/%s (resourceVersion %s): %w", s.namespace, cm.Name, cm.ResourceVersion, err)
	}
	return nil
}

// listPageSize bounds one page of a listing.
const listPageSize = 250

// list reads one page of the namespace's ConfigMaps matching selector with
// a quorum read (no resourceVersion: etcd, never a stale watch cache);
// cont continues a listing at the snapshot of its first page.
func (s *Store) list(ctx context.Context, selector, cont string) (*corev1.ConfigMapList, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout)
	defer cancel()
	req := s.rc.Get().Namespace(s.namespace).Resource("configmaps").
		Param("labelSelector", selector).Param("limit", strconv.Itoa(listPageSize)).MaxRetries(0)
	if cont != "" {
		req = req.Param("continue", cont)
	}
	list := &corev1.ConfigMapList{}
	if err := req.Do(ctx).Into(list); err != nil {
		return nil, fmt.Errorf("list configmaps %s in %s: %w", selector, s.namespace, err)
	}
	return list, nil
}
