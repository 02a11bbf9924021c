package flink_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/netfault"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/zkfault"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/zookeeper"
)

// faultWorld is what the side-by-side scenario needs beside the plain
// worker: a second worker reaching ZooKeeper through a fault proxy (ours:
// the faults hit the finalizer's writes), a second proxy for a Flink
// cluster on stock ZooKeeper HA (theirs: the faults hit Flink's writes),
// and an HTTP endpoint through which the Java test arms the faults and
// reads the worker's store, which only Go knows how to read.
type faultWorld struct {
	taskQueue string
	// workerProxy stands between the second worker and ZooKeeper,
	// flinkProxy between the stock Flink cluster and ZooKeeper.
	workerProxy, flinkProxy *zkfault.Proxy
	// worker is the faulted worker's process, paused to take it away;
	// temporalProxy stands between a Flink cluster and Temporal.
	worker        *proc.Process
	temporalProxy *netfault.Proxy
	// stores are the workers' stores by name: "main" (the plain worker's)
	// and "faults" (the faulted one's), read directly, not through a proxy.
	stores  map[string]*zookeeper.Store
	cluster map[string]string
	control string
}

// faultCluster is the cluster the faulted worker serves; the stock Flink
// cluster of the scenario takes the next name, which no worker serves.
const faultCluster = "c2"

func startFaultWorld(t *testing.T, suffix, bucket, mainCluster, mainRoot string) *faultWorld {
	t.Helper()
	w := &faultWorld{taskQueue: "flink-faults-" + suffix, stores: map[string]*zookeeper.Store{},
		cluster: map[string]string{"main": mainCluster, "faults": faultCluster}}
	var err error
	w.workerProxy, err = zkfault.Start(zk.Addr)
	require.NoError(t, err)
	t.Cleanup(w.workerProxy.Close)
	w.flinkProxy, err = zkfault.Start(zk.Addr)
	require.NoError(t, err)
	t.Cleanup(w.flinkProxy.Close)
	root := "/finalizer-faults-" + suffix
	w.temporalProxy, err = netfault.Start(temporal.HostPort)
	require.NoError(t, err)
	t.Cleanup(w.temporalProxy.Close)
	w.worker = startWorker(t, w.taskQueue, bucket, faultCluster, w.workerProxy.Addr, root,
		// A short session: a partitioned call is Unknown within seconds.
		"-zookeeper-session-timeout=4s")
	for name, root := range map[string]string{"main": mainRoot, "faults": root} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		store, err := zookeeper.Open(ctx, zookeeper.Config{Servers: []string{zk.Addr}, Root: root, SessionTimeout: 10 * time.Second},
			slog.New(slog.NewTextHandler(io.Discard, nil)))
		cancel()
		require.NoError(t, err)
		t.Cleanup(func() { _ = store.Close() })
		w.stores[name] = store
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: w.routes(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	w.control = "http://" + ln.Addr().String()
	return w
}

func (w *faultWorld) routes() http.Handler {
	mux := http.NewServeMux()
	// POST /fault?proxy=worker|flink&fault=drop-write-reply|partition|heal
	mux.HandleFunc("POST /fault", func(rw http.ResponseWriter, r *http.Request) {
		p := map[string]*zkfault.Proxy{"worker": w.workerProxy, "flink": w.flinkProxy}[r.URL.Query().Get("proxy")]
		f, known := map[string]zkfault.Fault{
			"drop-write-reply": zkfault.DropWriteReply, "partition": zkfault.Partition, "heal": zkfault.None,
		}[r.URL.Query().Get("fault")]
		if p == nil || !known {
			http.Error(rw, "proxy must be worker or flink, fault drop-write-reply, partition or heal", http.StatusBadRequest)
			return
		}
		p.Inject(f)
	})
	// POST /worker?state=pause|resume: the faulted worker away (SIGSTOP:
	// no polls, no shutdown) and back.
	mux.HandleFunc("POST /worker", func(rw http.ResponseWriter, r *http.Request) {
		sig, known := map[string]syscall.Signal{"pause": syscall.SIGSTOP, "resume": syscall.SIGCONT}[r.URL.Query().Get("state")]
		if !known {
			http.Error(rw, "state must be pause or resume", http.StatusBadRequest)
			return
		}
		if err := w.worker.Signal(sig); err != nil {
			http.Error(rw, err.Error(), http.StatusInternalServerError)
		}
	})
	// POST /temporal?fault=partition|heal: Temporal away from the clusters
	// that reach it through the proxy, and back.
	mux.HandleFunc("POST /temporal", func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("fault") {
		case "partition":
			w.temporalProxy.Partition()
		case "heal":
			w.temporalProxy.Heal()
		default:
			http.Error(rw, "fault must be partition or heal", http.StatusBadRequest)
		}
	})
	// GET /references?store=main|faults&job=<hex>: the checkpoint IDs a
	// worker's store references for the job, read linearizably.
	mux.HandleFunc("GET /references", func(rw http.ResponseWriter, r *http.Request) {
		name := r.URL.Query().Get("store")
		store := w.stores[name]
		if store == nil {
			http.Error(rw, "store must be main or faults", http.StatusBadRequest)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
		defer cancel()
		entries, err := store.List(ctx, stores.JobID{Cluster: w.cluster[name], Job: r.URL.Query().Get("job")})
		if err != nil {
			http.Error(rw, fmt.Sprintf("list: %v", err), http.StatusInternalServerError)
			return
		}
		ids := make([]uint64, 0, len(entries))
		for _, e := range entries {
			ids = append(ids, e.Checkpoint)
		}
		_ = json.NewEncoder(rw).Encode(ids)
	})
	return mux
}

// env is what the Java test reads to reach the fault world.
func (w *faultWorld) env() []string {
	return []string{
		"FINALIZER_IT_FAULT_TASK_QUEUE=" + w.taskQueue,
		"FINALIZER_IT_FAULT_CLUSTER=" + faultCluster,
		"FINALIZER_IT_FAULT_CONTROL=" + w.control,
		"FINALIZER_IT_FLINK_ZOOKEEPER_PROXY=" + w.flinkProxy.Addr,
		"FINALIZER_IT_TEMPORAL_PROXY=" + w.temporalProxy.Addr,
	}
}
