// Package flinkworld starts what every test of the Flink plugin needs
// beside Flink itself, once per test binary: the Temporal dev server with
// the finalizer's search attributes (installing its CLI if missing), a
// ZooKeeper server (Flink's leader election and the worker's store) and
// the finalizer-worker binary built from this tree. The MiniCluster tests
// (flink) and the real-cluster test (flink/cluster) share it; with -short
// the tests run without it and skip.
package flinkworld

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/devserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/workerproc"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/zktest"
)

// World is what Main started.
type World struct {
	Temporal  *devserver.Server
	ZooKeeper *zktest.Server
	// WorkerBin is the finalizer-worker binary, for workerproc.Start.
	WorkerBin string
}

// Main starts the world, runs the tests with it (run calls m.Run, or
// something that does), stops it and exits with the tests' code; name
// prefixes what it reports. Call it from TestMain.
func Main(m *testing.M, name string, run func(World) int) {
	flag.Parse()
	if realserver.Short() {
		os.Exit(m.Run()) // the tests skip in realserver.Require
	}
	os.Exit(start(name, run))
}

func start(name string, run func(World) int) int {
	// An install of the Temporal CLI can take ~12 minutes; the rest seconds.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cli, err := devserver.EnsureCLI(ctx, os.Stderr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: temporal CLI: %v\n", name, err)
		return 1
	}
	var w World
	w.Temporal, err = devserver.StartServer(ctx, devserver.Options{
		SearchAttributes: contract.SearchAttributes(), CLIPath: cli, Progress: os.Stderr,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: start temporal: %v\n", name, err)
		return 1
	}
	defer func() { _ = w.Temporal.Cleanup(false) }()
	if w.ZooKeeper, err = zktest.StartServer(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: start zookeeper: %v\n", name, err)
		return 1
	}
	defer w.ZooKeeper.Cleanup(false)
	dir, err := os.MkdirTemp("", "flink-worker-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if w.WorkerBin, err = workerproc.Build(dir); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 1
	}
	return run(w)
}
