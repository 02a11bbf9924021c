package kubernetes_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/kubernetes"
)

// getCM reads the job's ConfigMap as an operator would.
func getCM(t *testing.T, srv *kubetest.Server, ns string) *corev1.ConfigMap {
	t.Helper()
	name, err := kubernetes.ConfigMapName(job)
	require.NoError(t, err)
	cm, err := srv.Admin(t).ConfigMaps(ns).Get(ctxT(t), name, metav1.GetOptions{})
	require.NoError(t, err)
	return cm
}

func TestLayout(t *testing.T) {
	srv := kubetest.Shared(t)
	ns := srv.Namespace(t, "layout")
	s := open(t, srv.AdminConfig(), ns)
	require.NoError(t, s.ClaimEpoch(ctxT(t), job, 3, "jm-a"))
	p := pub(42, 3, "tok", 1)
	require.NoError(t, s.Publish(ctxT(t), p))

	cm := getCM(t, srv, ns)
	assert.Equal(t, "prod-eu.a1b2c3d4.checkpoints", cm.Name)
	assert.Equal(t, map[string]string{
		kubernetes.LabelManagedBy: kubernetes.ManagedBy, kubernetes.LabelCluster: "prod-eu", kubernetes.LabelJob: "a1b2c3d4",
	}, cm.Labels)
	assert.Equal(t, "3", cm.Annotations[kubernetes.AnnotationEpoch])
	assert.Equal(t, "jm-a", cm.Annotations[kubernetes.AnnotationOwner])
	assert.Equal(t, "0", cm.Annotations[kubernetes.AnnotationWatermark])
	assert.Equal(t, "false", cm.Annotations[kubernetes.AnnotationRetired])
	want, err := stores.EncodeEntry(stores.Entry{Checkpoint: 42, Reference: &p.Reference}, kubernetes.MaxConfigMapBytes)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"checkpointID-0000000000000000042": string(want)}, cm.Data)
	for _, mf := range cm.ManagedFields {
		assert.Equal(t, "checkpoint-finalizer", mf.Manager)
	}
}

// Every GET of the store is a quorum read (no resourceVersion parameter)
// and every write an Update or a Create, as the audit log shows.
func TestRequestsAreQuorumReadsAndConditionalWrites(t *testing.T) {
	srv := kubetest.Shared(t)
	ns := srv.Namespace(t, "requests")
	s := open(t, srv.AdminConfig(), ns)
	require.NoError(t, s.ClaimEpoch(ctxT(t), job, 1, "jm"))
	require.NoError(t, s.Publish(ctxT(t), pub(1, 1, "tok", 1)))
	v, err := s.Verify(ctxT(t), cp(2), "tok", 1)
	require.NoError(t, err)
	assert.Equal(t, stores.Absent, v)
	require.NoError(t, s.Subsume(ctxT(t), cp(1), 1))

	name, _ := kubernetes.ConfigMapName(job)
	events, err := srv.AuditEvents(ns, name)
	require.NoError(t, err)
	verbs := map[string]int{}
	for _, e := range events {
		if !strings.HasPrefix(e.UserAgent, "checkpoint-finalizer/") {
			continue
		}
		verbs[e.Verb]++
		assert.NotContains(t, e.RequestURI, "resourceVersion", "%s %s", e.Verb, e.RequestURI)
	}
	assert.Equal(t, map[string]int{"get": 4, "create": 1, "update": 3}, verbs)
}

func TestMissingNamespaceIsRejected(t *testing.T) {
	srv := kubetest.Shared(t)
	s := open(t, srv.AdminConfig(), "no-such-namespace")
	err := s.ClaimEpoch(ctxT(t), job, 1, "jm")
	assert.Equal(t, stores.Rejected, stores.OutcomeOf(err), "%v", err)
	assert.ErrorIs(t, err, kubernetes.ErrRefused)
	assert.True(t, apierrors.IsNotFound(err), "%v", err)
}

// A real 422: the API server refuses to change an immutable ConfigMap.
func TestInvalidUpdateIsRejected(t *testing.T) {
	srv := kubetest.Shared(t)
	ns := srv.Namespace(t, "immutable")
	s := open(t, srv.AdminConfig(), ns)
	require.NoError(t, s.ClaimEpoch(ctxT(t), job, 1, "jm"))
	cm := getCM(t, srv, ns)
	cm.Immutable = new(true)
	cm, err := srv.Admin(t).ConfigMaps(ns).Update(ctxT(t), cm, metav1.UpdateOptions{})
	require.NoError(t, err)

	err = s.Publish(ctxT(t), pub(1, 1, "tok", 1))
	assert.Equal(t, stores.Rejected, stores.OutcomeOf(err), "%v", err)
	assert.True(t, apierrors.IsInvalid(err), "%v", err)
	assert.Equal(t, cm.ResourceVersion, getCM(t, srv, ns).ResourceVersion, "nothing written")
}

// Content the store cannot decode is never guessed at: Unknown, so the
// finalization stays visibly stuck until an operator repairs it.
func TestUndecodableEntryIsUnknown(t *testing.T) {
	srv := kubetest.Shared(t)
	ns := srv.Namespace(t, "garbage")
	s := open(t, srv.AdminConfig(), ns)
	require.NoError(t, s.ClaimEpoch(ctxT(t), job, 1, "jm"))
	cm := getCM(t, srv, ns)
	cm.Data = map[string]string{"checkpointID-0000000000000000001": "{not json"}
	_, err := srv.Admin(t).ConfigMaps(ns).Update(ctxT(t), cm, metav1.UpdateOptions{})
	require.NoError(t, err)

	err = s.Publish(ctxT(t), pub(1, 1, "tok", 1))
	assert.Equal(t, stores.Unknown, stores.OutcomeOf(err), "%v", err)
	v, err := s.Verify(ctxT(t), cp(1), "tok", 1)
	assert.Error(t, err)
	assert.Equal(t, stores.VerdictUnknown, v)
	_, err = s.Read(ctxT(t), cp(1))
	assert.Error(t, err)
}

// A publish that would push the ConfigMap past its budget is Rejected with
// ErrTooLarge and sends nothing; the reserve still lets Verify fence.
func TestTooLarge(t *testing.T) {
	srv := kubetest.Shared(t)
	ns := srv.Namespace(t, "large")
	s := open(t, srv.AdminConfig(), ns)
	require.NoError(t, s.ClaimEpoch(ctxT(t), job, 1, "jm"))
	require.NoError(t, s.Publish(ctxT(t), pub(1, 1, "tok", 1)))
	cm := getCM(t, srv, ns)
	// Someone else's key in our ConfigMap counts towards its size.
	cm.Data["filler"] = strings.Repeat("x", kubernetes.MaxConfigMapBytes-kubernetes.FenceReserve-1500)
	cm, err := srv.Admin(t).ConfigMaps(ns).Update(ctxT(t), cm, metav1.UpdateOptions{})
	require.NoError(t, err)

	big := pub(2, 1, "big", 1)
	big.Reference.Handle = strings.Repeat("h", stores.MaxHandleLength)
	err = s.Publish(ctxT(t), big)
	assert.Equal(t, stores.Rejected, stores.OutcomeOf(err), "%v", err)
	assert.ErrorIs(t, err, stores.ErrTooLarge)
	assert.Equal(t, cm.ResourceVersion, getCM(t, srv, ns).ResourceVersion, "nothing written")

	v, err := s.Verify(ctxT(t), cp(2), "big", 1)
	require.NoError(t, err)
	assert.Equal(t, stores.Absent, v, "the fence fits in the reserve")
}

// Two clients publishing the same attempt race on one resourceVersion:
// the loser's 409 is re-read and finds its own token, so both are Published.
func TestConcurrentSamePublicationBothPublished(t *testing.T) {
	srv := kubetest.Shared(t)
	ns := srv.Namespace(t, "same")
	require.NoError(t, open(t, srv.AdminConfig(), ns).ClaimEpoch(ctxT(t), job, 1, "jm"))
	const clients = 6
	for n := uint64(1); n <= 5; n++ {
		errs := make([]error, clients)
		var wg sync.WaitGroup
		for i := range clients {
			s := open(t, srv.AdminConfig(), ns)
			wg.Go(func() { errs[i] = s.Publish(ctxT(t), pub(n, 1, "same", 1)) })
		}
		wg.Wait()
		for i, err := range errs {
			assert.NoError(t, err, "client %d checkpoint %d", i, n)
		}
	}
}

// Publishes of different checkpoints of one job all contend for one
// ConfigMap; the loop must carry every one of them through.
func TestConcurrentCheckpointsOfOneJob(t *testing.T) {
	srv := kubetest.Shared(t)
	ns := srv.Namespace(t, "contention")
	s := open(t, srv.AdminConfig(), ns)
	require.NoError(t, s.ClaimEpoch(ctxT(t), job, 1, "jm"))
	const writers = 8
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for i := range writers {
		c := open(t, srv.AdminConfig(), ns)
		wg.Go(func() { errs[i] = c.Publish(ctxT(t), pub(uint64(i+1), 1, fmt.Sprintf("tok-%d", i), 1)) })
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	list, err := s.List(ctxT(t), job)
	require.NoError(t, err)
	assert.Len(t, list, writers)
}
