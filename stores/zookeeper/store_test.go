package zookeeper_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/storetest"
	"github.com/checkpoint-finalizer/finalizer/stores/zookeeper"
)

type harness struct{ cfg zookeeper.Config }

// Open connects a new session: clients of one harness are separate
// ZooKeeper sessions on the same root.
func (h harness) Open(t *testing.T) stores.ReferenceStore { return open(t, h.cfg) }

func TestConformance(t *testing.T) {
	storetest.RunConformanceTests(t, func(t *testing.T) storetest.Harness {
		return harness{cfg: config(serverAddr(t), uniqueRoot())}
	})
}

var job = stores.JobID{Cluster: "c1", Job: "j1"}

func pub(n uint64, handle string) stores.Publication {
	return stores.Publication{
		CheckpointID: stores.CheckpointID{JobID: job, Checkpoint: n}, Epoch: 1,
		Reference: stores.Reference{Handle: handle, Token: "tok", Attempt: 1},
	}
}

func TestFlinkLayout(t *testing.T) {
	root := uniqueRoot()
	s := open(t, config(serverAddr(t), root))
	require.NoError(t, s.ClaimEpoch(t.Context(), job, 1, "jm"))
	require.NoError(t, s.Publish(t.Context(), pub(42, "h")))

	raw := rawConn(t)
	_, _, err := raw.Get(root + "/c1/checkpoints/j1/0000000000000000042")
	require.NoError(t, err, "reference at <root>/<cluster>/checkpoints/<job>/%019d")
	data, _, err := raw.Get(root + "/c1/jobs/j1")
	require.NoError(t, err)
	assert.Contains(t, string(data), `"epoch":1`)
}

func TestOversizedReferenceRejectedBeforeSending(t *testing.T) {
	cfg := config(serverAddr(t), uniqueRoot())
	cfg.MaxValueSize = 256
	s := open(t, cfg)
	require.NoError(t, s.ClaimEpoch(t.Context(), job, 1, "jm"))

	err := s.Publish(t.Context(), pub(1, strings.Repeat("h", 300)))
	require.ErrorIs(t, err, stores.ErrTooLarge)
	assert.Equal(t, stores.Rejected, stores.OutcomeOf(err))
	e, err := s.Read(t.Context(), stores.CheckpointID{JobID: job, Checkpoint: 1})
	require.NoError(t, err)
	assert.True(t, e.Absent(), "nothing written")
}

func TestDigestAuthAndACL(t *testing.T) {
	root := uniqueRoot()
	cfg := config(serverAddr(t), root)
	cfg.DigestUser, cfg.DigestPassword = "finalizer", "s3cret"
	s := open(t, cfg)
	require.NoError(t, s.ClaimEpoch(t.Context(), job, 1, "jm"))
	require.NoError(t, s.Publish(t.Context(), pub(1, "h")))

	raw := rawConn(t)
	require.NoError(t, raw.AddAuth("digest", []byte("finalizer:s3cret")))
	acl, _, err := raw.GetACL(root + "/c1/checkpoints/j1/0000000000000000001")
	require.NoError(t, err)
	assert.Equal(t, zk.DigestACL(zk.PermAll, "finalizer", "s3cret"), acl)

	// Without credentials, or with wrong ones, nothing can be read or written.
	anonymous := open(t, config(serverAddr(t), root))
	_, err = anonymous.Read(t.Context(), stores.CheckpointID{JobID: job, Checkpoint: 1})
	assert.ErrorIs(t, err, stores.ErrForbidden)
	err = anonymous.Publish(t.Context(), pub(2, "h"))
	assert.ErrorIs(t, err, stores.ErrForbidden)
	assert.Equal(t, stores.Rejected, stores.OutcomeOf(err))

	wrong := cfg
	wrong.DigestPassword = "guess"
	_, err = open(t, wrong).Verify(t.Context(), stores.CheckpointID{JobID: job, Checkpoint: 3}, "tok", 1)
	assert.ErrorIs(t, err, stores.ErrForbidden)

	list, err := s.List(t.Context(), job)
	require.NoError(t, err)
	assert.Len(t, list, 1)
}

func TestConfigValidatedBeforeConnecting(t *testing.T) {
	ok := config("127.0.0.1:1", "/flink")
	cases := map[string]func(c *zookeeper.Config){
		"servers":         func(c *zookeeper.Config) { c.Servers = nil },
		"servers ":        func(c *zookeeper.Config) { c.Servers = []string{"nohostport"} },
		"root":            func(c *zookeeper.Config) { c.Root = "relative" },
		"root ":           func(c *zookeeper.Config) { c.Root = "/a/../b" },
		"root  ":          func(c *zookeeper.Config) { c.Root = "/a/" },
		"session timeout": func(c *zookeeper.Config) { c.SessionTimeout = 10 * time.Millisecond },
		"digest":          func(c *zookeeper.Config) { c.DigestUser = "u" },
	}
	for field, mutate := range cases {
		cfg := ok
		mutate(&cfg)
		// Port 1 is closed: a connection attempt would hang until the deadline.
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		_, err := zookeeper.Open(ctx, cfg, quiet)
		cancel()
		var inv *stores.InvalidError
		require.ErrorAs(t, err, &inv, field)
		assert.Equal(t, strings.TrimSpace(field), inv.Field)
	}
}

func rawConn(t *testing.T) *zk.Conn {
	t.Helper()
	c, _, err := zk.Connect([]string{serverAddr(t)}, sessionTimeout, zk.WithLogInfo(false))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// TestFootprint: the job's subtree keeps the nodes and bytes retention
// gives it, however many checkpoints pass (go test -run TestFootprint
// -footprint.checkpoints=20000 ./stores/zookeeper for the soak).
func TestFootprint(t *testing.T) {
	root := uniqueRoot()
	raw := rawConn(t)
	storetest.RunFootprint(t, open(t, config(serverAddr(t), root)), storetest.Footprint{
		Bytes:  func(context.Context) (int, error) { return subtreeBytes(raw, root) },
		Server: func(context.Context) (string, error) { return monitor(server.Addr) },
	})
}

// monitor reads the server's znode count and data size (the mntr
// four-letter command).
func monitor(addr string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, 4*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if _, err := c.Write([]byte("mntr")); err != nil {
		return "", err
	}
	out, err := io.ReadAll(c)
	if err != nil {
		return "", err
	}
	stats := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(line, "\t"); ok {
			stats[k] = v
		}
	}
	return fmt.Sprintf("server: %s znodes, %s bytes of data", stats["zk_znode_count"], stats["zk_approximate_data_size"]), nil
}

// subtreeBytes sums the data of every node under path, path included.
func subtreeBytes(c *zk.Conn, path string) (int, error) {
	data, _, err := c.Get(path)
	if err != nil {
		return 0, fmt.Errorf("get %s: %w", path, err)
	}
	children, _, err := c.Children(path)
	if err != nil {
		return 0, fmt.Errorf("children of %s: %w", path, err)
	}
	n := len(data)
	for _, ch := range children {
		m, err := subtreeBytes(c, path+"/"+ch)
		if err != nil {
			return 0, err
		}
		n += m
	}
	return n, nil
}
