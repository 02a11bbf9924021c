package kubernetes_test

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/kubernetes"
)

// These tests produce real ambiguous writes against the real API server
// and check that Verify resolves each one to the truth:
//   - a proxy between kube-apiserver and etcd forwards the transaction that
//     carries a unique token and drops etcd's reply (applied, then a real
//     5xx or a client deadline), or drops the transaction (a real 5xx,
//     nothing applied);
//   - a TCP proxy in front of the API server (TLS passes through) swallows
//     the reply to an applied Update, or holds an Update until after the
//     fence and then delivers it: a zombie that must change nothing.
// None of them may run in parallel with other tests: cutting the API
// server's etcd connection disturbs every request in flight.

func uniqueToken(t *testing.T) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "ambiguous-" + hex.EncodeToString(b)
}

// settle calls Verify until it answers, as the workflow does while the
// store heals; it fails the test after a minute.
func settle(t *testing.T, s stores.ReferenceStore, id stores.CheckpointID, token string, attempt uint32) stores.Verdict {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		v, err := s.Verify(ctxT(t), id, token, attempt)
		if err == nil {
			return v
		}
		require.NotEqual(t, stores.Rejected, stores.OutcomeOf(err), "verify: %v", err)
		require.True(t, time.Now().Before(deadline), "verify never answered: %v", err)
		t.Logf("verify not settled yet: %v", err)
		time.Sleep(250 * time.Millisecond)
	}
}

func waitTriggered(t *testing.T, a *kubetest.Armed) {
	t.Helper()
	select {
	case <-a.Triggered():
	case <-time.After(10 * time.Second):
		t.Fatal("fault never triggered")
	}
}

func statusCode(err error) int {
	var s apierrors.APIStatus
	if errors.As(err, &s) {
		return int(s.Status().Code)
	}
	return 0
}

// Applied in etcd, then the API server loses its etcd connection before
// the reply: a real 500 for a write that landed.
func TestAmbiguousAppliedThenEtcdConnectionLost(t *testing.T) {
	srv := kubetest.Shared(t)
	ns := srv.Namespace(t, "etcd-applied")
	s := open(t, srv.AdminConfig(), ns)
	require.NoError(t, s.ClaimEpoch(ctxT(t), job, 1, "jm"))
	token := uniqueToken(t)

	a := srv.EtcdProxy.Arm(kubetest.Fault{Kind: kubetest.DropReply, Match: []byte(token), CutAfter: 300 * time.Millisecond})
	defer a.Disarm()
	err := s.Publish(ctxT(t), pub(1, 1, token, 1))
	waitTriggered(t, a)
	require.Error(t, err)
	assert.Equal(t, stores.Unknown, stores.OutcomeOf(err), "%v", err)
	assert.GreaterOrEqual(t, statusCode(err), 500, "a real 5xx: %v", err)

	assert.Equal(t, stores.Present, settle(t, s, cp(1), token, 1))
	e, err := s.Read(ctxT(t), cp(1))
	require.NoError(t, err)
	assert.True(t, e.HoldsToken(token))
}

// Applied in etcd, etcd's reply withheld longer than the client waits: the
// client's deadline expires on a write that landed.
func TestAmbiguousAppliedThenClientTimeout(t *testing.T) {
	srv := kubetest.Shared(t)
	ns := srv.Namespace(t, "etcd-timeout")
	s := open(t, srv.AdminConfig(), ns, func(c *kubernetes.Config) { c.RequestTimeout = time.Second })
	require.NoError(t, s.ClaimEpoch(ctxT(t), job, 1, "jm"))
	token := uniqueToken(t)

	a := srv.EtcdProxy.Arm(kubetest.Fault{Kind: kubetest.DropReply, Match: []byte(token), CutAfter: 3 * time.Second})
	defer a.Disarm()
	err := s.Publish(ctxT(t), pub(1, 1, token, 1))
	waitTriggered(t, a)
	require.Error(t, err)
	assert.Equal(t, stores.Unknown, stores.OutcomeOf(err), "%v", err)
	assert.Zero(t, statusCode(err), "the client gave up before any answer: %v", err)

	assert.Equal(t, stores.Present, settle(t, s, cp(1), token, 1))
}

// The transaction never reaches etcd: a real 5xx for a write that did not
// land. Verify fences it Absent; the stale Update replayed afterwards (old
// resourceVersion, old attempt) fails with 409 and changes nothing.
func TestAmbiguousLostBeforeEtcdIsFenced(t *testing.T) {
	srv := kubetest.Shared(t)
	ns := srv.Namespace(t, "etcd-lost")
	s := open(t, srv.AdminConfig(), ns)
	require.NoError(t, s.ClaimEpoch(ctxT(t), job, 1, "jm"))
	token := uniqueToken(t)
	before := getCM(t, srv, ns)

	a := srv.EtcdProxy.Arm(kubetest.Fault{Kind: kubetest.DropRequest, Match: []byte(token)})
	defer a.Disarm()
	err := s.Publish(ctxT(t), pub(1, 1, token, 1))
	waitTriggered(t, a)
	require.Error(t, err)
	assert.Equal(t, stores.Unknown, stores.OutcomeOf(err), "%v", err)
	assert.GreaterOrEqual(t, statusCode(err), 500, "a real 5xx: %v", err)

	assert.Equal(t, stores.Absent, settle(t, s, cp(1), token, 1))
	fenced := getCM(t, srv, ns)
	e, err := s.Read(ctxT(t), cp(1))
	require.NoError(t, err)
	require.NotNil(t, e.Tombstone)
	assert.Equal(t, uint32(1), e.Tombstone.FencedUpTo)

	replayStaleUpdate(t, srv, ns, before, token)
	err = s.Publish(ctxT(t), pub(1, 1, token, 1))
	assert.ErrorIs(t, err, stores.ErrFenced)
	assert.Equal(t, fenced.ResourceVersion, getCM(t, srv, ns).ResourceVersion, "the replays changed nothing")

	// The workflow's next attempt replaces its own fence.
	require.NoError(t, s.Publish(ctxT(t), pub(1, 1, token, 2)))
	assert.Equal(t, stores.Present, settle(t, s, cp(1), token, 2))
}

// replayStaleUpdate sends the Update the lost publish would have sent:
// the ConfigMap as read before it, with the reference, at the old
// resourceVersion. The API server must answer 409.
func replayStaleUpdate(t *testing.T, srv *kubetest.Server, ns string, before *corev1.ConfigMap, token string) {
	t.Helper()
	p := pub(1, 1, token, 1)
	b, err := stores.EncodeEntry(stores.Entry{Checkpoint: 1, Reference: &p.Reference}, kubernetes.MaxConfigMapBytes)
	require.NoError(t, err)
	stale := before.DeepCopy()
	stale.ManagedFields = nil
	stale.Data = map[string]string{"checkpointID-0000000000000000001": string(b)}
	_, err = srv.Admin(t).ConfigMaps(ns).Update(ctxT(t), stale, metav1.UpdateOptions{})
	assert.True(t, apierrors.IsConflict(err), "stale update: %v", err)
}

// The API server applies the Update; its reply is lost on the way back
// (the proxy in front swallows it and cuts the connection).
func TestAmbiguousReplyLostInFrontOfAPIServer(t *testing.T) {
	srv := kubetest.Shared(t)
	ns := srv.Namespace(t, "front-reply")
	s := open(t, srv.FrontConfig(srv.AdminToken), ns)
	require.NoError(t, s.ClaimEpoch(ctxT(t), job, 1, "jm")) // also warms the connection
	token := uniqueToken(t)

	// Publish sends GET then PUT: skip the GET, swallow the PUT's reply.
	a := srv.FrontProxy.Arm(kubetest.Fault{Kind: kubetest.DropReply, Skip: 1})
	defer a.Disarm()
	err := s.Publish(ctxT(t), pub(1, 1, token, 1))
	waitTriggered(t, a)
	require.Error(t, err)
	assert.Equal(t, stores.Unknown, stores.OutcomeOf(err), "%v", err)
	assert.Zero(t, statusCode(err), "the reply never arrived: %v", err)

	assert.Equal(t, stores.Present, settle(t, s, cp(1), token, 1))
	name, _ := kubernetes.ConfigMapName(job)
	events, err := srv.AuditEvents(ns, name)
	require.NoError(t, err)
	assert.Contains(t, updateCodes(events), 200, "the API server applied the update")
}

// The Update is held in front of the API server while the client times
// out, Verify fences the key, and only then the held Update reaches the
// API server: a zombie write with an old resourceVersion. It gets 409 and
// changes nothing.
func TestZombieUpdateAfterFenceChangesNothing(t *testing.T) {
	srv := kubetest.Shared(t)
	ns := srv.Namespace(t, "front-zombie")
	zombie := open(t, srv.FrontConfig(srv.AdminToken), ns, func(c *kubernetes.Config) { c.RequestTimeout = time.Second })
	verifier := open(t, srv.AdminConfig(), ns)
	require.NoError(t, zombie.ClaimEpoch(ctxT(t), job, 1, "jm"))
	token := uniqueToken(t)

	a := srv.FrontProxy.Arm(kubetest.Fault{Kind: kubetest.HoldRequest, Skip: 1})
	defer a.Disarm()
	err := zombie.Publish(ctxT(t), pub(1, 1, token, 1))
	waitTriggered(t, a)
	require.Error(t, err)
	assert.Equal(t, stores.Unknown, stores.OutcomeOf(err), "%v", err)

	assert.Equal(t, stores.Absent, settle(t, verifier, cp(1), token, 1))
	fenced := getCM(t, srv, ns)

	require.NoError(t, a.Release())
	select {
	case <-a.Replied():
	case <-time.After(15 * time.Second):
		t.Fatal("the API server never answered the released update")
	}
	assert.Equal(t, fenced.ResourceVersion, getCM(t, srv, ns).ResourceVersion, "the zombie changed nothing")
	name, _ := kubernetes.ConfigMapName(job)
	events, err := srv.AuditEvents(ns, name)
	require.NoError(t, err)
	codes := updateCodes(events)
	require.NotEmpty(t, codes)
	assert.Equal(t, 409, codes[len(codes)-1], "the zombie update was refused with a conflict: %v", codes)

	e, err := verifier.Read(ctxT(t), cp(1))
	require.NoError(t, err)
	require.NotNil(t, e.Tombstone)
	assert.ErrorIs(t, zombie.Publish(ctxT(t), pub(1, 1, token, 1)), stores.ErrFenced)
}

func updateCodes(events []kubetest.AuditEvent) []int {
	var codes []int
	for _, e := range events {
		if e.Verb == "update" {
			codes = append(codes, e.ResponseStatus.Code)
		}
	}
	return codes
}
