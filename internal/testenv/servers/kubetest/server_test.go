package kubetest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
)

// The harness itself: AlwaysAllow by default, a static token of its own,
// a usable API server, and a directory that goes away with Stop.
func TestStartStop(t *testing.T) {
	realserver.Require(t, "kube-apiserver and etcd")
	srv, err := Start(Options{Tokens: []Token{{Token: "plain-token", User: "plain"}}})
	require.NoError(t, err)
	t.Logf("started in %s", srv.StartDuration)
	stopped := false
	defer func() {
		if !stopped {
			srv.KeepLogs()
			srv.Stop()
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// AlwaysAllow: a user outside system:masters may write.
	c, err := corev1client.NewForConfig(srv.Config("plain-token"))
	require.NoError(t, err)
	ns := srv.Namespace(t, "start-stop")
	cm, err := c.ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.NotEmpty(t, cm.ResourceVersion)

	bad, _ := corev1client.NewForConfig(srv.Config("wrong-token"))
	_, err = bad.ConfigMaps(ns).Get(ctx, "x", metav1.GetOptions{})
	assert.Error(t, err, "an unknown token is refused")

	srv.Stop()
	stopped = true
	_, err = os.Stat(srv.Dir)
	assert.True(t, os.IsNotExist(err), "the directory is removed: %v", err)
}
