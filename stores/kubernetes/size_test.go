package kubernetes_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/kubernetes"
)

// Issue 22: a Verify can always write its fence whatever else a ConfigMap
// carries. Publishes filled the ConfigMap up to their budget (which counts
// every annotation, label and key), then another tool annotated it with
// 200 KiB, as the API server allows (256 KiB of annotations, 1 MiB of data
// values). The store counted those annotations against the API server's
// 1 MiB as well and refused the fence as too large, so the finalization's
// unknown outcome could never resolve. Publishes must hit TooLarge, and
// fences, subsumptions, claims and retirements still fit.
func TestFenceFitsWhateverAnnotationsCarry(t *testing.T) {
	srv := kubetest.Shared(t)
	ns := srv.Namespace(t, "annotated")
	s := open(t, srv.AdminConfig(), ns)
	require.NoError(t, s.ClaimEpoch(ctxT(t), job, 1, "jm"))
	require.NoError(t, s.Publish(ctxT(t), pub(1, 1, "tok-1", 1)))
	tamper(t, srv, ns, func(cm *corev1.ConfigMap) {
		cm.Data["filler"] = strings.Repeat("x", kubernetes.MaxConfigMapBytes-kubernetes.FenceReserve-2000)
	})
	require.NoError(t, s.Publish(ctxT(t), pub(2, 1, "tok-2", 1)), "a publish within the budget")
	tamper(t, srv, ns, func(cm *corev1.ConfigMap) {
		cm.Annotations["example.com/another-tool"] = strings.Repeat("a", 200<<10)
	})

	err := s.Publish(ctxT(t), pub(3, 1, "tok-3", 1))
	assert.ErrorIs(t, err, stores.ErrTooLarge, "publishes hit TooLarge first")
	assert.Equal(t, stores.Rejected, stores.OutcomeOf(err), "%v", err)

	for n := uint64(3); n <= 12; n++ {
		v, err := s.Verify(ctxT(t), cp(n), "tok-3", 1)
		require.NoError(t, err, "fence of checkpoint %d", n)
		require.Equal(t, stores.Absent, v)
	}
	require.NoError(t, s.Subsume(ctxT(t), cp(1), 1))
	require.NoError(t, s.ClaimEpoch(ctxT(t), job, 2, "jm-2"))
	require.NoError(t, s.Retire(ctxT(t), job, 2, false)) // a retained record would stay
	_, err = s.CollectTombstones(ctxT(t), job, time.Now().Add(time.Hour))
	require.NoError(t, err)
	entries, err := s.ListEntries(ctxT(t), job)
	require.NoError(t, err)
	assert.Empty(t, entries, "every tombstone collected")
	logSize(t, getCM(t, srv, ns))
}

// logSize reports what the API server stored, for the record.
func logSize(t *testing.T, cm *corev1.ConfigMap) {
	data, annotations := 0, 0
	for _, v := range cm.Data {
		data += len(v)
	}
	for k, v := range cm.Annotations {
		annotations += len(k) + len(v)
	}
	t.Logf("stored: data values %d bytes, annotations %d bytes, %d keys", data, annotations, len(cm.Data))
}

// The same with the data in thousands of small keys, as months of fences
// and tombstones leave them: the object the API server stores (data,
// annotations, every key again in managedFields) must still take a fence.
func TestFenceFitsAConfigMapOfManySmallKeys(t *testing.T) {
	srv := kubetest.Shared(t)
	ns := srv.Namespace(t, "many-keys")
	s := open(t, srv.AdminConfig(), ns)
	require.NoError(t, s.ClaimEpoch(ctxT(t), job, 1, "jm"))
	require.NoError(t, s.Publish(ctxT(t), pub(1, 1, "tok-1", 1)))
	since := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	tamper(t, srv, ns, func(cm *corev1.ConfigMap) {
		// Keys 2..n as the store writes them, until a publish's budget is
		// all but spent.
		for n := uint64(2); ; n++ {
			b, err := stores.EncodeEntry(stores.Entry{Checkpoint: n, Tombstone: &stores.Tombstone{
				Token: fmt.Sprintf("%032x", n), FencedUpTo: 1, Reason: stores.ReasonFenced, Since: since,
			}}, kubernetes.MaxConfigMapBytes)
			require.NoError(t, err)
			cm.Data[fmt.Sprintf("%s%019d", kubernetes.KeyPrefix, n)] = string(b)
			if kubernetes.ObjectSize(cm) > kubernetes.MaxConfigMapBytes-kubernetes.FenceReserve-500 {
				return
			}
		}
	})
	tamper(t, srv, ns, func(cm *corev1.ConfigMap) {
		cm.Annotations["example.com/another-tool"] = strings.Repeat("a", 250<<10)
	})
	err := s.Publish(ctxT(t), pub(1<<40, 1, "tok-late", 1))
	assert.ErrorIs(t, err, stores.ErrTooLarge, "publishes hit TooLarge first")
	for n := uint64(1<<40 + 1); n <= 1<<40+20; n++ {
		v, err := s.Verify(ctxT(t), cp(n), "tok-late", 1)
		require.NoError(t, err, "fence of checkpoint %d", n)
		require.Equal(t, stores.Absent, v)
	}
	cm := getCM(t, srv, ns)
	logSize(t, cm)
	managed, err := json.Marshal(cm.ManagedFields)
	require.NoError(t, err)
	whole, err := json.Marshal(cm)
	require.NoError(t, err)
	t.Logf("managedFields %d bytes; the whole object %d bytes as JSON", len(managed), len(whole))
}
