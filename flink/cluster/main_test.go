// Package cluster_test proves the Flink plugin on a real standalone Flink
// cluster, side by side with Flink's stock ZooKeeper HA: separate
// processes for two JobManagers, a TaskManager, ZooKeeper, the Temporal dev
// server and the finalizer's worker (internal/testenv/servers/flinkcluster starts Flink's
// own), jobs submitted with Flink's command-line client, their committed
// output checked exactly once. Each scenario runs in both worlds and the
// test prints one table; the plugin's row is checked against stock's.
//
// It is its own package, beside flink/'s MiniCluster tests, so that `go
// test ./...` runs it without waiting for their kube-apiserver.
package cluster_test

import (
	"testing"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/devserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/flinkworld"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/zktest"
)

var (
	temporal  *devserver.Server
	zk        *zktest.Server
	workerBin string
)

func TestMain(m *testing.M) {
	flinkworld.Main(m, "flink/cluster", func(w flinkworld.World) int {
		temporal, zk, workerBin = w.Temporal, w.ZooKeeper, w.WorkerBin
		return m.Run()
	})
}
