package kubernetes

import corev1 "k8s.io/api/core/v1"

// MaxConfigMapBytes is the API server's limit on a ConfigMap's data
// (corevalidation.MaxSecretSize, 1 MiB).
const MaxConfigMapBytes = 1 << 20

// FenceReserve is the room a Publish must leave free in its ConfigMap, so
// that a Verify can always fence a key (a tombstone is about 150 bytes) and
// Subsume and Retire can always write theirs: a full ConfigMap must never
// make an unknown outcome unresolvable.
const FenceReserve = 64 << 10

// objectSize over-approximates what the API server counts against
// MaxConfigMapBytes (the data values): it adds keys, annotations, labels and
// the name, so that a write accepted here is never refused for its size.
func objectSize(cm *corev1.ConfigMap) int {
	n := len(cm.Name)
	for k, v := range cm.Data {
		n += len(k) + len(v)
	}
	for k, v := range cm.BinaryData {
		n += len(k) + len(v)
	}
	for k, v := range cm.Annotations {
		n += len(k) + len(v)
	}
	for k, v := range cm.Labels {
		n += len(k) + len(v)
	}
	return n
}
