package main

import (
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExitCodes(t *testing.T) {
	assert.Equal(t, 0, run([]string{"-h"}), "help")

	t.Setenv("FINALIZER_STORE", "zookeeper") // without servers
	assert.Equal(t, 2, run(nil), "bad configuration")
	assert.Equal(t, 2, run([]string{"-retain=many"}), "unparseable flag")

	// Nothing listens on a port just released: the healthcheck fails.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	assert.Equal(t, 1, run([]string{"healthcheck", "-metrics-address=" + addr}))
}
