package kubernetes

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// MaxConfigMapBytes is the API server's limit on a ConfigMap's data values
// (corevalidation.MaxSecretSize, 1 MiB, counting Data and BinaryData values
// only). Annotations have a limit of their own,
// apivalidation.TotalAnnotationSizeLimitB (256 KiB, keys and values).
const MaxConfigMapBytes = 1 << 20

// FenceReserve is the room a Publish must leave free in its ConfigMap, so
// that a Verify can always fence a key (a tombstone is about 150 bytes) and
// Subsume and Retire can always write theirs: a full ConfigMap must never
// make an unknown outcome unresolvable.
const FenceReserve = 64 << 10

// sizeRule is what a ConfigMap about to be written must fit; it returns
// an error wrapping stores.ErrTooLarge, and nothing is sent, when it does
// not.
type sizeRule func(cm *corev1.ConfigMap) error

// publishFits is a Publish's rule: the whole object (every key, value,
// annotation and label, another tool's included) within MaxConfigMapBytes
// less FenceReserve. Since that over-counts what the API server counts, the
// data values keep FenceReserve free whatever annotations are added after
// the publish: publishes hit ErrTooLarge first.
func publishFits(cm *corev1.ConfigMap) error {
	if n, budget := objectSize(cm), MaxConfigMapBytes-FenceReserve; n > budget {
		return fmt.Errorf("would hold %d bytes of keys, values, annotations and labels, a publish's budget is %d (the API server's %d less %d kept for fences): %w",
			n, budget, MaxConfigMapBytes, FenceReserve, stores.ErrTooLarge)
	}
	return nil
}

// serverFits is the rule of every other write (a fence, a subsumption, a
// retirement, a claim, a collection, a quarantine): exactly the API
// server's limits, so that the room publishes left is theirs to use and a
// fence is refused only when the API server would refuse it.
func serverFits(cm *corev1.ConfigMap) error {
	if n := dataSize(cm); n > MaxConfigMapBytes {
		return fmt.Errorf("data values would hold %d bytes, the API server's limit is %d: %w", n, MaxConfigMapBytes, stores.ErrTooLarge)
	}
	if n := annotationsSize(cm); n > apivalidation.TotalAnnotationSizeLimitB {
		return fmt.Errorf("annotations would hold %d bytes, the API server's limit is %d: %w",
			n, apivalidation.TotalAnnotationSizeLimitB, stores.ErrTooLarge)
	}
	return nil
}

// objectSize over-approximates what the API server counts: keys, values,
// annotations, labels and the name.
func objectSize(cm *corev1.ConfigMap) int {
	n := len(cm.Name) + dataSize(cm) + annotationsSize(cm)
	for k := range cm.Data {
		n += len(k)
	}
	for k := range cm.BinaryData {
		n += len(k)
	}
	for k, v := range cm.Labels {
		n += len(k) + len(v)
	}
	return n
}

// dataSize is what the API server counts against MaxConfigMapBytes.
func dataSize(cm *corev1.ConfigMap) int {
	n := 0
	for _, v := range cm.Data {
		n += len(v)
	}
	for _, v := range cm.BinaryData {
		n += len(v)
	}
	return n
}

func annotationsSize(cm *corev1.ConfigMap) int {
	n := 0
	for k, v := range cm.Annotations {
		n += len(k) + len(v)
	}
	return n
}
