// Package examples_test runs the job managers under examples/, written
// without our Go code (jobmanager-cli: the temporal CLI, jq and sha256sum;
// jobmanager-ts: TypeScript on @temporalio/client), against the real
// Temporal dev server and a real finalizer-worker process on a real
// ZooKeeper. Go here is only the harness: it starts the servers, reads
// what the drivers print and checks it against the contract.
package examples_test

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

// One Temporal dev server, one ZooKeeper and one worker binary for the
// package; each test runs its own worker process on a task queue, a
// ZooKeeper root, a bucket and a cluster of its own.
var (
	temporal  *devserver.Server
	zk        *zktest.Server
	workerBin string
	// cliPath is the temporal CLI the dev server runs from: the CLI driver
	// uses the same binary.
	cliPath string
)

func TestMain(m *testing.M) {
	flag.Parse()
	if realserver.Short() {
		os.Exit(m.Run()) // every test skips in newEnv
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	// A cold install of the CLI takes ~15 min; the server start about a second.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	var err error
	if cliPath, err = devserver.EnsureCLI(ctx, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "examples: temporal CLI:", err)
		return 1
	}
	temporal, err = devserver.StartServer(ctx, devserver.Options{
		SearchAttributes: contract.SearchAttributes(), CLIPath: cliPath, Progress: os.Stderr,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "examples: start temporal:", err)
		return 1
	}
	zk, err = zktest.StartServer()
	if err != nil {
		fmt.Fprintln(os.Stderr, "examples: start zookeeper:", err)
		_ = temporal.Cleanup(true)
		return 1
	}
	dir, err := os.MkdirTemp("", "examples-worker-")
	if err == nil {
		defer os.RemoveAll(dir)
		workerBin, err = workerproc.Build(dir)
	}
	if err == nil {
		err = ensureJQ()
	}
	code := 1
	if err != nil {
		fmt.Fprintln(os.Stderr, "examples:", err)
	} else {
		code = m.Run()
	}
	zk.Cleanup(code != 0)
	_ = temporal.Cleanup(code != 0)
	if code != 0 {
		fmt.Fprintf(os.Stderr, "examples: kept the Temporal server log %s\n", temporal.LogPath)
	}
	return code
}
