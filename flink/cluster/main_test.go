// Package cluster_test proves the Flink plugin on a real standalone Flink
// cluster, side by side with Flink's stock ZooKeeper HA: separate
// processes for two JobManagers, a TaskManager, ZooKeeper, the Temporal dev
// server and the finalizer's worker (internal/flinkcluster starts Flink's
// own), jobs submitted with Flink's command-line client, their committed
// output checked exactly once. Each scenario runs in both worlds and the
// test prints one table; the plugin's row is checked against stock's.
//
// It is its own package, beside flink/'s MiniCluster tests, so that `go
// test ./...` runs it without waiting for their kube-apiserver.
package cluster_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/devserver"
	"github.com/checkpoint-finalizer/finalizer/internal/realserver"
	"github.com/checkpoint-finalizer/finalizer/internal/workerproc"
	"github.com/checkpoint-finalizer/finalizer/internal/zktest"
)

var (
	temporal  *devserver.Server
	zk        *zktest.Server
	workerBin string
)

func TestMain(m *testing.M) {
	flag.Parse()
	if realserver.Short() {
		os.Exit(m.Run()) // the test skips in realserver.Require
	}
	os.Exit(run(m))
}

// run starts the servers every world shares and builds the worker.
func run(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cli, err := devserver.EnsureCLI(ctx, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "flink/cluster: temporal CLI:", err)
		return 1
	}
	temporal, err = devserver.StartServer(ctx, devserver.Options{
		SearchAttributes: contract.SearchAttributes(), CLIPath: cli, Progress: os.Stderr,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "flink/cluster: start temporal:", err)
		return 1
	}
	defer func() { _ = temporal.Cleanup(false) }()
	if zk, err = zktest.StartServer(); err != nil {
		fmt.Fprintln(os.Stderr, "flink/cluster: start zookeeper:", err)
		return 1
	}
	defer zk.Cleanup(false)
	dir, err := os.MkdirTemp("", "flink-cluster-worker-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "flink/cluster:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if workerBin, err = workerproc.Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, "flink/cluster:", err)
		return 1
	}
	return m.Run()
}
