package e2e

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/devserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/zktest"
)

var recordHistories = flag.Bool("record-histories", false, "write the scenarios' histories to workflows/testdata/histories")

// One Temporal dev server, one ZooKeeper and (on first use) one Kubernetes
// API server for the package; each test uses task queues, jobs, roots and
// namespaces of its own.
var (
	temporal *devserver.Server
	zk       *zktest.Server
)

func TestMain(m *testing.M) {
	flag.Parse()
	if realserver.Short() {
		os.Exit(m.Run()) // every test skips in newEnvOn
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	var err error
	temporal, err = devserver.StartServer(ctx, devserver.Options{
		SearchAttributes: contract.SearchAttributes(), Progress: os.Stderr,
	})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "start temporal:", err)
		os.Exit(1)
	}
	zk, err = zktest.StartServer()
	if err != nil {
		fmt.Fprintln(os.Stderr, "start zookeeper:", err)
		_ = temporal.Cleanup(true)
		os.Exit(1)
	}
	// The Kubernetes API server starts on the first test that needs it.
	code := kubetest.Run(m, kubetest.Options{})
	zk.Cleanup(code != 0)
	_ = temporal.Cleanup(code != 0)
	os.Exit(code)
}
