package kubernetes

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// SetServiceAccountDir makes the in-cluster configuration read the pod's
// service account from dir until the test ends.
func SetServiceAccountDir(t testing.TB, dir string) {
	old := serviceAccountDir
	serviceAccountDir = dir
	t.Cleanup(func() { serviceAccountDir = old })
}

// ObjectSize is what a publish counts against its budget.
func ObjectSize(cm *corev1.ConfigMap) int { return objectSize(cm) }
