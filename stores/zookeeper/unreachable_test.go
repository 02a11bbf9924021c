package zookeeper_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores/zookeeper"
)

// An ensemble that does not answer is reported within seconds, with the
// address and the client's own error, while Open keeps trying; the error
// Open ends with says it too.
func TestOpenReportsAnUnreachableEnsemble(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now

	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx, cancel := context.WithTimeout(context.Background(), 7*time.Second)
	defer cancel()
	_, err = zookeeper.Open(ctx, zookeeper.Config{Servers: []string{addr}, Root: "/unreachable", SessionTimeout: 10 * time.Second}, log)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorContains(t, err, "connection refused")
	assert.Contains(t, buf.String(), "no zookeeper session yet, still trying")
	assert.Contains(t, buf.String(), addr)
	assert.Contains(t, buf.String(), "connection refused")
}
