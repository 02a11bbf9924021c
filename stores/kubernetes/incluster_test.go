package kubernetes_test

import (
	"crypto/x509"
	"errors"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/cert"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/kubernetes"
)

// fakePod lays out what the kubelet gives a pod of namespace ns: the
// service account's token, the cluster CA and the namespace in a directory
// the in-cluster configuration then reads, and the API server's address in
// KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT. It returns the
// directory.
func fakePod(t *testing.T, srv *kubetest.Server, ns, token string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range map[string][]byte{"token": []byte(token), "ca.crt": srv.CAData, "namespace": []byte(ns)} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), content, 0o600))
	}
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	host, port, err := net.SplitHostPort(u.Host)
	require.NoError(t, err)
	t.Setenv("KUBERNETES_SERVICE_HOST", host)
	t.Setenv("KUBERNETES_SERVICE_PORT", port)
	kubernetes.SetServiceAccountDir(t, dir)
	return dir
}

func openInCluster(t *testing.T, cfg kubernetes.Config) *kubernetes.Store {
	t.Helper()
	cfg.InCluster = true
	s, err := kubernetes.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// A pod's view, as the worker has it with FINALIZER_KUBERNETES_IN_CLUSTER:
// the namespace from the mounted file, the service account's real token
// from the TokenRequest API bound to the manifest's Role, checked by the
// real RBAC authorizer; the store works at home and nowhere else.
func TestInClusterServiceAccount(t *testing.T) {
	srv := kubetest.Shared(t)
	ns := srv.Namespace(t, "incluster")
	other := srv.Namespace(t, "incluster-other")
	fakePod(t, srv, ns, applyRBAC(t, srv, ns))

	s := openInCluster(t, kubernetes.Config{})
	assert.Equal(t, ns, s.Namespace(), "the namespace file's")
	require.NoError(t, s.ClaimEpoch(ctxT(t), job, 1, "jm"))
	require.NoError(t, s.Publish(ctxT(t), pub(1, 1, "tok", 1)))
	assert.Contains(t, getCM(t, srv, ns).Data, "checkpointID-0000000000000000001")
	jobs, err := s.ListJobs(ctxT(t), job.Cluster)
	require.NoError(t, err)
	assert.Equal(t, []stores.JobID{job}, jobs)

	// The credential is the service account's, not an administrator's.
	away := openInCluster(t, kubernetes.Config{Namespace: other})
	assert.Equal(t, other, away.Namespace(), "Namespace overrides the file")
	err = away.ClaimEpoch(ctxT(t), job, 1, "jm")
	assert.ErrorIs(t, err, stores.ErrForbidden)
	assert.True(t, apierrors.IsForbidden(err), "%v", err)
}

// What a pod would be missing fails at New, naming it; a CA that is not
// the cluster's fails the first request.
func TestInClusterRefusals(t *testing.T) {
	srv := kubetest.Shared(t)
	ns := srv.Namespace(t, "incluster-refusals")

	t.Run("not in a pod", func(t *testing.T) {
		fakePod(t, srv, ns, srv.AdminToken)
		t.Setenv("KUBERNETES_SERVICE_HOST", "")
		_, err := kubernetes.New(kubernetes.Config{InCluster: true})
		assert.ErrorIs(t, err, rest.ErrNotInCluster)
		assert.ErrorContains(t, err, "KUBERNETES_SERVICE_HOST")
	})
	t.Run("no token", func(t *testing.T) {
		dir := fakePod(t, srv, ns, srv.AdminToken)
		require.NoError(t, os.Remove(filepath.Join(dir, "token")))
		_, err := kubernetes.New(kubernetes.Config{InCluster: true})
		assert.ErrorIs(t, err, fs.ErrNotExist)
		assert.ErrorContains(t, err, "service account token")
	})
	t.Run("no namespace", func(t *testing.T) {
		dir := fakePod(t, srv, ns, srv.AdminToken)
		require.NoError(t, os.Remove(filepath.Join(dir, "namespace")))
		_, err := kubernetes.New(kubernetes.Config{InCluster: true})
		assert.ErrorIs(t, err, fs.ErrNotExist)
		assert.ErrorContains(t, err, "in-cluster namespace")
	})
	t.Run("CA not PEM", func(t *testing.T) {
		dir := fakePod(t, srv, ns, srv.AdminToken)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "ca.crt"), []byte("not a certificate"), 0o600))
		_, err := kubernetes.New(kubernetes.Config{InCluster: true})
		assert.ErrorContains(t, err, "service account CA")
	})
	t.Run("another cluster's CA", func(t *testing.T) {
		dir := fakePod(t, srv, ns, srv.AdminToken)
		other, _, err := cert.GenerateSelfSignedCertKey("other-cluster", nil, nil)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "ca.crt"), other, 0o600))
		s := openInCluster(t, kubernetes.Config{})
		err = s.ClaimEpoch(ctxT(t), job, 1, "jm")
		var unknownCA x509.UnknownAuthorityError
		assert.True(t, errors.As(err, &unknownCA), "%v", err)
	})
}
