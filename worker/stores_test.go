package worker

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// A worker whose Kubernetes API server does not answer (a closed port)
// says so within seconds, with the address and the error, while it keeps
// trying (stores/kubernetes TestOpenReportsAnUnreachableAPIServer shows
// it then finding the real API server); its start fails with both once
// the wait ends.
func TestStartReportsAnUnreachableAPIServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now
	kc := clientcmdapi.NewConfig()
	kc.Clusters["c"] = &clientcmdapi.Cluster{Server: "https://" + addr, InsecureSkipTLSVerify: true}
	kc.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: "t"}
	kc.Contexts["x"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u", Namespace: "finalizer"}
	kc.CurrentContext = "x"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*kc, path))

	cfg := DefaultConfig()
	cfg.Store.Kind = StoreKubernetes
	cfg.Store.Kubernetes.Kubeconfig = path
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	_, err = openReferences(ctx, cfg, log)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorContains(t, err, addr)
	assert.ErrorContains(t, err, "connection refused")
	assert.GreaterOrEqual(t, time.Since(start), 4*time.Second, "kept trying until the context ended")
	assert.Contains(t, buf.String(), "kubernetes API server not answering yet, still trying")
	assert.Contains(t, buf.String(), addr)
	assert.Contains(t, buf.String(), "connection refused")
}
