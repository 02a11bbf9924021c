package kubernetes_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/kubernetes"
	"github.com/checkpoint-finalizer/finalizer/stores/storetest"
)

// tamper edits the job's ConfigMap as an operator's kubectl or a GitOps
// replace would, and returns what it wrote.
func tamper(t *testing.T, srv *kubetest.Server, ns string, edit func(cm *corev1.ConfigMap)) *corev1.ConfigMap {
	t.Helper()
	cm := getCM(t, srv, ns)
	edit(cm)
	cm, err := srv.Admin(t).ConfigMaps(ns).Update(ctxT(t), cm, metav1.UpdateOptions{})
	require.NoError(t, err)
	return cm
}

// standing is a job at epoch 7 with checkpoint 5 published.
func standing(t *testing.T, name string) (*kubetest.Server, string, *kubernetes.Store) {
	t.Helper()
	srv := kubetest.Shared(t)
	ns := srv.Namespace(t, name)
	s := open(t, srv.AdminConfig(), ns)
	require.NoError(t, s.ClaimEpoch(ctxT(t), job, 7, "jm-7"))
	require.NoError(t, s.Publish(ctxT(t), pub(5, 7, "tok", 1)))
	return srv, ns, s
}

// requireUntouched asserts that nothing was written over the tampering.
func requireUntouched(t *testing.T, srv *kubetest.Server, ns string, want *corev1.ConfigMap) {
	t.Helper()
	assert.Equal(t, want.ResourceVersion, getCM(t, srv, ns).ResourceVersion, "the ConfigMap was written over")
}

// Issue 22, finding 7: a job ConfigMap whose epoch and owner annotations
// were removed (kubectl annotate ...-, a GitOps replace) was read as epoch
// 0, and a deposed leader's claim of epoch 2 succeeded after the job stood
// at epoch 7. Every annotation of the job state is required, and strict.
func TestCorruptAnnotationsRefused(t *testing.T) {
	cases := []struct {
		name string
		edit func(a map[string]string)
	}{
		{"epoch and owner removed", func(a map[string]string) {
			delete(a, kubernetes.AnnotationEpoch)
			delete(a, kubernetes.AnnotationOwner)
		}},
		{"epoch removed", func(a map[string]string) { delete(a, kubernetes.AnnotationEpoch) }},
		{"owner removed", func(a map[string]string) { delete(a, kubernetes.AnnotationOwner) }},
		{"watermark removed", func(a map[string]string) { delete(a, kubernetes.AnnotationWatermark) }},
		{"retired removed", func(a map[string]string) { delete(a, kubernetes.AnnotationRetired) }},
		{"forgotten epoch removed", func(a map[string]string) { delete(a, kubernetes.AnnotationForgottenEpoch) }},
		{"every annotation removed", func(a map[string]string) {
			for k := range a {
				delete(a, k)
			}
		}},
		{"epoch 07", func(a map[string]string) { a[kubernetes.AnnotationEpoch] = "07" }},
		{"epoch +7", func(a map[string]string) { a[kubernetes.AnnotationEpoch] = "+7" }},
		{"epoch empty", func(a map[string]string) { a[kubernetes.AnnotationEpoch] = "" }},
		{"retired yes", func(a map[string]string) { a[kubernetes.AnnotationRetired] = "yes" }},
		{"retired 0", func(a map[string]string) { a[kubernetes.AnnotationRetired] = "0" }},
		{"owner emptied", func(a map[string]string) { a[kubernetes.AnnotationOwner] = "" }},
		{"unknown state version", func(a map[string]string) { a[kubernetes.AnnotationStateVersion] = "3" }},
		{"an annotation of ours this version does not know", func(a map[string]string) { a["checkpoint-finalizer.io/leader"] = "jm-9" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, ns, s := standing(t, "annotations")
			cm := tamper(t, srv, ns, func(cm *corev1.ConfigMap) { c.edit(cm.Annotations) })
			storetest.RequireJobRefused(t, s, job, 5)
			requireUntouched(t, srv, ns, cm)
		})
	}
}

// A retired job whose retired annotation was removed accepted a publish
// again.
func TestRetiredAnnotationRemovedRefusesPublish(t *testing.T) {
	srv, ns, s := standing(t, "unretired")
	require.NoError(t, s.Retire(ctxT(t), job, 7, true))
	cm := tamper(t, srv, ns, func(cm *corev1.ConfigMap) { delete(cm.Annotations, kubernetes.AnnotationRetired) })
	storetest.RequireCorrupt(t, s.Publish(ctxT(t), pub(9, 7, "tok-9", 1)), "Publish after the retirement")
	requireUntouched(t, srv, ns, cm)
}

// A key holding what no encoder wrote is refused, never decided on.
func TestCorruptEntryRefused(t *testing.T) {
	for _, c := range storetest.CorruptEntries {
		t.Run(c.Name, func(t *testing.T) {
			srv, ns, s := standing(t, "entries")
			cm := tamper(t, srv, ns, func(cm *corev1.ConfigMap) { cm.Data["checkpointID-0000000000000000005"] = c.Data })
			storetest.RequireEntryRefused(t, s, cp(5))
			requireUntouched(t, srv, ns, cm)
		})
	}
}

// A key under our prefix spelt as we never spell one is refused by every
// call that lists the keys; a key without our prefix is another tool's
// and stays its own.
func TestMalformedKeyRefused(t *testing.T) {
	srv, ns, s := standing(t, "keys")
	tamper(t, srv, ns, func(cm *corev1.ConfigMap) { cm.Data["checkpointID-7"] = cm.Data["checkpointID-0000000000000000005"] })
	storetest.RequireKeysRefused(t, s, job)
}

// A binary key under our prefix is not one this store wrote: reading past
// it could hide a reference.
func TestBinaryKeyOfOursRefused(t *testing.T) {
	srv, ns, s := standing(t, "binary")
	tamper(t, srv, ns, func(cm *corev1.ConfigMap) {
		cm.BinaryData = map[string][]byte{"checkpointID-0000000000000000006": []byte(cm.Data["checkpointID-0000000000000000005"])}
	})
	storetest.RequireEntryRefused(t, s, cp(5))
}

// A ConfigMap under our name that another program wrote (its labels are
// not this job's) is refused as corrupt state: Unknown, never Rejected, so
// a finalization parks instead of discarding.
func TestForeignConfigMapRefused(t *testing.T) {
	srv := kubetest.Shared(t)
	ns := srv.Namespace(t, "foreign")
	name, err := kubernetes.ConfigMapName(job)
	require.NoError(t, err)
	foreign, err := srv.Admin(t).ConfigMaps(ns).Create(ctxT(t), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "someone-else"}},
		Data:       map[string]string{"config": "theirs"},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	// Not labelled as ours, so ListJobs never selects it: every other call
	// is refused.
	s := open(t, srv.AdminConfig(), ns)
	storetest.RequireCorrupt(t, s.ClaimEpoch(ctxT(t), job, 1, "jm"), "ClaimEpoch")
	_, err = s.ReadJob(ctxT(t), job)
	storetest.RequireCorrupt(t, err, "ReadJob")
	storetest.RequireEntryRefused(t, s, cp(5))
	requireUntouched(t, srv, ns, foreign)
}

// A ConfigMap of format version 1 (the five state annotations, no state
// version) reads as what it says, and the next write adds the version.
func TestLegacyAnnotationsRead(t *testing.T) {
	srv, ns, s := standing(t, "legacy")
	tamper(t, srv, ns, func(cm *corev1.ConfigMap) { delete(cm.Annotations, kubernetes.AnnotationStateVersion) })
	st, err := s.ReadJob(ctxT(t), job)
	require.NoError(t, err)
	assert.Equal(t, stores.JobState{Epoch: 7, Owner: "jm-7"}, st)
	err = s.ClaimEpoch(ctxT(t), job, 2, "jm-2")
	require.ErrorIs(t, err, stores.ErrStaleEpoch, "a legacy ConfigMap still fences a deposed leader")
	require.Equal(t, stores.Rejected, stores.OutcomeOf(err))
	require.NoError(t, s.Subsume(ctxT(t), cp(5), 7))
	assert.Equal(t, "2", getCM(t, srv, ns).Annotations[kubernetes.AnnotationStateVersion])
	_, err = s.CollectTombstones(ctxT(t), job, time.Now().Add(time.Hour))
	require.NoError(t, err)
}

// A ConfigMap that carries this store's labels for the cluster under a name
// that is not its job's was logged and left out of ListJobs: the
// reconciler never reported it. It is refused, as a foreign node among
// ZooKeeper's jobs is.
func TestConfigMapLabelledOursUnderAnotherNameRefused(t *testing.T) {
	srv, ns, s := standing(t, "misnamed")
	cm := getCM(t, srv, ns)
	copied := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "copy-of-" + cm.Name, Labels: cm.Labels, Annotations: cm.Annotations}, Data: cm.Data}
	_, err := srv.Admin(t).ConfigMaps(ns).Create(ctxT(t), copied, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = s.ListJobs(ctxT(t), job.Cluster)
	storetest.RequireCorrupt(t, err, "ListJobs")
}
