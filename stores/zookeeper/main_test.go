package zookeeper_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/zktest"
	"github.com/checkpoint-finalizer/finalizer/stores/zookeeper"
)

// server is one real ZooKeeper for the whole package; each test works
// under a root of its own and reaches it through serverAddr.
var server *zktest.Server

func TestMain(m *testing.M) {
	flag.Parse()
	if realserver.Short() {
		os.Exit(m.Run()) // the tests that need the server skip in serverAddr
	}
	s, err := zktest.StartServer()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	server = s
	code := m.Run()
	s.Cleanup(code != 0)
	os.Exit(code)
}

// serverAddr is the server's address; under -short it skips tb.
func serverAddr(tb testing.TB) string {
	tb.Helper()
	realserver.Require(tb, "ZooKeeper")
	return server.Addr
}

var roots atomic.Int64

func uniqueRoot() string {
	return fmt.Sprintf("/finalizer-test/%d-%d", os.Getpid(), roots.Add(1))
}

// sessionTimeout is short, so that a test that cuts a connection sees its
// session recover (or expire) quickly.
const sessionTimeout = 4 * time.Second

// heldSessionTimeout is for a session whose traffic a test holds back (a
// held multi-op holds every later frame, pings included; a paused server
// answers nothing): the client closes a connection that answers nothing for
// two thirds of the session timeout, so the session must outlast the hold
// even when a loaded machine makes what the test does meanwhile slow.
const heldSessionTimeout = 30 * time.Second

func config(addr, root string) zookeeper.Config {
	return configWith(addr, root, sessionTimeout)
}

func configWith(addr, root string, timeout time.Duration) zookeeper.Config {
	return zookeeper.Config{Servers: []string{addr}, Root: root, SessionTimeout: timeout}
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func open(t *testing.T, cfg zookeeper.Config) *zookeeper.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := zookeeper.Open(ctx, cfg, quiet)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}
