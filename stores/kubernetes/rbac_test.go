package kubernetes_test

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	authorizationv1client "k8s.io/client-go/kubernetes/typed/authorization/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	rbacv1client "k8s.io/client-go/kubernetes/typed/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/kubernetes"
	"github.com/checkpoint-finalizer/finalizer/stores/storetest"
)

const rbacManifest = "../../deploy/kubernetes/base/rbac.yaml"

// applyRBAC creates the manifest's ServiceAccount, Role and RoleBinding in
// ns (the manifest's own namespace replaced) and returns a bound
// service-account token from the TokenRequest API: the real credential a
// pod would get, checked by the real RBAC authorizer.
func applyRBAC(t *testing.T, srv *kubetest.Server, ns string) string {
	t.Helper()
	raw, err := os.ReadFile(rbacManifest)
	require.NoError(t, err)
	rbac, err := rbacv1client.NewForConfig(srv.AdminConfig())
	require.NoError(t, err)
	core := srv.Admin(t)
	var sa string
	for _, doc := range bytes.Split(raw, []byte("\n---")) {
		var meta metav1.TypeMeta
		require.NoError(t, yaml.Unmarshal(doc, &meta))
		switch meta.Kind {
		case "ServiceAccount":
			var o corev1.ServiceAccount
			require.NoError(t, yaml.UnmarshalStrict(doc, &o))
			o.Namespace, sa = ns, o.Name
			_, err = core.ServiceAccounts(ns).Create(ctxT(t), &o, metav1.CreateOptions{})
		case "Role":
			var o rbacv1.Role
			require.NoError(t, yaml.UnmarshalStrict(doc, &o))
			o.Namespace = ns
			_, err = rbac.Roles(ns).Create(ctxT(t), &o, metav1.CreateOptions{})
		case "RoleBinding":
			var o rbacv1.RoleBinding
			require.NoError(t, yaml.UnmarshalStrict(doc, &o))
			o.Namespace = ns
			for i := range o.Subjects {
				o.Subjects[i].Namespace = ns
			}
			_, err = rbac.RoleBindings(ns).Create(ctxT(t), &o, metav1.CreateOptions{})
		default:
			t.Fatalf("unexpected kind %q in %s", meta.Kind, rbacManifest)
		}
		require.NoError(t, err, meta.Kind)
	}
	require.NotEmpty(t, sa)
	awaitGrant(t, srv, ns, sa)
	tr, err := core.ServiceAccounts(ns).CreateToken(ctxT(t), sa, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: new(int64(3600))},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	return tr.Status.Token
}

// awaitGrant waits until the RBAC authorizer grants the service account
// what the new RoleBinding gives it: the authorizer reads roles and
// bindings through an informer, so a request made right after the create
// can still be refused (CI saw "forbidden" on a conformance case's first
// call). The review asks the same authorizer the store's calls reach.
func awaitGrant(t *testing.T, srv *kubetest.Server, ns, sa string) {
	t.Helper()
	authz, err := authorizationv1client.NewForConfig(srv.AdminConfig())
	require.NoError(t, err)
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:               "system:serviceaccount:" + ns + ":" + sa,
		Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "update", Resource: "configmaps"},
	}}
	require.Eventually(t, func() bool {
		got, err := authz.SubjectAccessReviews().Create(ctxT(t), review, metav1.CreateOptions{})
		return err == nil && got.Status.Allowed
	}, 30*time.Second, 20*time.Millisecond, "the RoleBinding of %s/%s never took effect", ns, sa)
}

// The manifest's verbs are enough for everything the store does: the whole
// conformance suite runs under the service account.
func TestConformanceLeastPrivilege(t *testing.T) {
	srv := kubetest.Shared(t)
	storetest.RunConformanceTests(t, func(t *testing.T) storetest.Harness {
		ns := srv.Namespace(t, "rbac-"+t.Name())
		return tokenHarness{srv: srv, ns: ns, token: applyRBAC(t, srv, ns)}
	})
}

type tokenHarness struct {
	srv       *kubetest.Server
	ns, token string
}

func (h tokenHarness) Open(t *testing.T) stores.ReferenceStore {
	return open(t, h.srv.Config(h.token), h.ns)
}

// The service account can do nothing outside its namespace, and nothing
// beyond get/list/create/update inside it.
func TestRBACRefusesOtherNamespace(t *testing.T) {
	srv := kubetest.Shared(t)
	ns := srv.Namespace(t, "rbac-home")
	other := srv.Namespace(t, "rbac-other")
	token := applyRBAC(t, srv, ns)

	home := open(t, srv.Config(token), ns)
	require.NoError(t, home.ClaimEpoch(ctxT(t), job, 1, "jm"))
	require.NoError(t, home.Publish(ctxT(t), pub(1, 1, "tok", 1)))

	away := open(t, srv.Config(token), other)
	err := away.ClaimEpoch(ctxT(t), job, 1, "jm")
	assert.Equal(t, stores.Rejected, stores.OutcomeOf(err), "%v", err)
	assert.ErrorIs(t, err, stores.ErrForbidden)
	assert.True(t, apierrors.IsForbidden(err), "%v", err)
	v, err := away.Verify(ctxT(t), cp(1), "tok", 1)
	assert.Equal(t, stores.VerdictUnknown, v)
	assert.True(t, apierrors.IsForbidden(err), "%v", err)

	_, err = away.ListJobs(ctxT(t), job.Cluster)
	assert.ErrorIs(t, err, stores.ErrForbidden, "list in another namespace")

	// Least privilege: list at home (the reconciler's inventory), but no
	// watch, no delete, no patch.
	sa, err := corev1client.NewForConfig(srv.Config(token))
	require.NoError(t, err)
	_, err = sa.ConfigMaps(ns).List(ctxT(t), metav1.ListOptions{})
	assert.NoError(t, err, "list")
	_, err = sa.ConfigMaps(ns).Watch(ctxT(t), metav1.ListOptions{})
	assert.True(t, apierrors.IsForbidden(err), "watch: %v", err)
	name, _ := kubernetes.ConfigMapName(job)
	err = sa.ConfigMaps(ns).Delete(ctxT(t), name, metav1.DeleteOptions{})
	assert.True(t, apierrors.IsForbidden(err), "delete: %v", err)
	_, err = sa.ConfigMaps(ns).Patch(ctxT(t), name, types.MergePatchType, []byte(`{"data":{"x":"y"}}`), metav1.PatchOptions{})
	assert.True(t, apierrors.IsForbidden(err), "patch: %v", err)
	_, err = sa.Secrets(ns).Get(ctxT(t), "any", metav1.GetOptions{})
	assert.True(t, apierrors.IsForbidden(err), "secrets: %v", err)
}
