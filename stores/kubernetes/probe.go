package kubernetes

import (
	"context"
	"fmt"
)

// Probe reports whether the store can serve calls now: the API server
// answers a one-item listing of the namespace's ConfigMaps with the
// worker's own credentials (so a revoked role shows too).
func (s *Store) Probe(ctx context.Context) error {
	err := s.rc.Get().Namespace(s.namespace).Resource("configmaps").Param("limit", "1").Do(ctx).Error()
	if err != nil {
		return fmt.Errorf("kubernetes API, namespace %s: %w", s.namespace, err)
	}
	return nil
}
