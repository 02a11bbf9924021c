package main

import (
	"net"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/temporaltest"
	"github.com/checkpoint-finalizer/finalizer/worker/devserver"
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

// A namespace that does not exist, on a real server: exit 2, as for any
// configuration that repeating the start cannot fix.
func TestExitCodeMissingNamespace(t *testing.T) {
	srv := temporaltest.Start(t, devserver.Options{SearchAttributes: contract.SearchAttributes()})
	dir := t.TempDir()
	assert.Equal(t, 2, run([]string{
		"-temporal-address=" + srv.HostPort, "-temporal-namespace=finalizer-prod",
		"-embedded-path=" + filepath.Join(dir, "refs.db"),
		"-state-bucket=file://" + filepath.Join(dir, "bucket") + "?create_dir=true",
		"-metrics-address=127.0.0.1:0",
	}))
}
