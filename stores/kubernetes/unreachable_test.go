package kubernetes_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
	"github.com/checkpoint-finalizer/finalizer/stores/kubernetes"
)

// An API server that does not answer is reported within seconds, with
// its address and the client's error, while Open keeps trying: once the
// address answers (a forwarder to the real API server on the port that
// refused), Open returns a store that serves. A context that ends first
// ends Open with the address and the last error.
func TestOpenReportsAnUnreachableAPIServer(t *testing.T) {
	srv := kubetest.Shared(t)
	ns := srv.Namespace(t, "unreachable")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now
	rc := rest.CopyConfig(srv.AdminConfig())
	rc.Host = "https://" + addr

	t.Run("gives up when the context ends", func(t *testing.T) {
		var log syncBuffer
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		_, err := kubernetes.Open(ctx, kubernetes.Config{Namespace: ns, REST: rc, Logger: slog.New(slog.NewTextHandler(&log, nil))})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.ErrorContains(t, err, addr)
		assert.ErrorContains(t, err, "connection refused")
	})

	var log syncBuffer
	opened := make(chan error, 1)
	var s *kubernetes.Store
	go func() {
		var err error
		s, err = kubernetes.Open(ctxT(t), kubernetes.Config{Namespace: ns, REST: rc, Logger: slog.New(slog.NewTextHandler(&log, nil))})
		opened <- err
	}()
	require.Eventually(t, func() bool { return strings.Contains(log.String(), "still trying") }, 7*time.Second, 50*time.Millisecond,
		"reported within seconds")
	assert.Contains(t, log.String(), "kubernetes API server not answering yet, still trying")
	assert.Contains(t, log.String(), addr)
	assert.Contains(t, log.String(), "connection refused")
	select {
	case err := <-opened:
		t.Fatalf("Open returned while nothing answered: %v", err)
	default:
	}

	// The address answers now: Open finds it and returns a store that serves.
	forward(t, addr, strings.TrimPrefix(srv.URL, "https://"))
	select {
	case err := <-opened:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("Open did not notice the API server answering")
	}
	defer s.Close()
	require.NoError(t, s.Probe(ctxT(t)))
	require.NoError(t, s.ClaimEpoch(ctxT(t), job, 1, "jm"))
}

// forward accepts on addr and pipes each connection to target until the
// test ends.
func forward(t *testing.T, addr, target string) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				_ = in.Close()
				continue
			}
			go func() { _, _ = io.Copy(out, in); _ = out.Close() }()
			go func() { _, _ = io.Copy(in, out); _ = in.Close() }()
		}
	}()
}
