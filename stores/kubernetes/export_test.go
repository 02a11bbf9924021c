package kubernetes

import "testing"

// SetServiceAccountDir makes the in-cluster configuration read the pod's
// service account from dir until the test ends.
func SetServiceAccountDir(t testing.TB, dir string) {
	old := serviceAccountDir
	serviceAccountDir = dir
	t.Cleanup(func() { serviceAccountDir = old })
}
