package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/workerproc"
	"github.com/checkpoint-finalizer/finalizer/tools/topology"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

// WorkerOnly is the worker's memory as a process of its own (the
// finalizer-worker binary, default settings), idle and with finalizations
// parked in Verifying: what a deployment's memory limit must hold, without
// the bench's triggers and direct-path stores in the figure.
type WorkerOnly struct {
	Store worker.StoreKind `json:"store"`
	// IdleRSS is its VmRSS polling with nothing to do.
	IdleRSS int64           `json:"idleRssBytes"`
	Steps   []WorkerOnlyRSS `json:"steps"`
}

// WorkerOnlyRSS is the worker process's memory with Parked finalizations
// in Verifying, after they settled.
type WorkerOnlyRSS struct {
	Parked int `json:"parked"`
	// Confirmed is how many the visibility query found Verifying.
	Confirmed int `json:"confirmed"`
	// RSS is VmRSS once they settled; PeakRSS is VmHWM since the start.
	RSS     int64 `json:"rssBytes"`
	PeakRSS int64 `json:"peakRssBytes"`
}

// GrowthPer1000 is the RSS added by each 1,000 parked between the first
// and the last step.
func (w WorkerOnly) GrowthPer1000() (int64, bool) {
	if len(w.Steps) < 2 {
		return 0, false
	}
	first, last := w.Steps[0], w.Steps[len(w.Steps)-1]
	if last.Parked == first.Parked {
		return 0, false
	}
	return (last.RSS - first.RSS) * 1000 / int64(last.Parked-first.Parked), true
}

const workerOnlyJob = "worker-only"

// workerStopGrace is how long the worker process may drain after SIGTERM
// before it is killed.
const workerStopGrace = 40 * time.Second

// workerOnly runs a finalizer-worker process on its own task queue, then
// parks finalizations on it up to each count of cfg.WorkerParked (they
// add up), reading its memory after each; it abandons them at the end.
func (sr *storeRun) workerOnly(ctx context.Context) (*WorkerOnly, error) {
	bin := filepath.Join(sr.dir, "bin")
	fmt.Fprintf(sr.cfg.Progress, "%s: build finalizer-worker for the worker-only scenario\n", sr.kind)
	if err := topology.BuildBinaries(ctx, bin); err != nil {
		return nil, err
	}
	queue := "bench-worker-only-" + string(sr.kind)
	wp, metrics, err := sr.startWorkerProcess(ctx, filepath.Join(bin, "finalizer-worker"), queue)
	if err != nil {
		return nil, err
	}
	defer func() { _ = wp.Stop(workerStopGrace) }()
	pid := strconv.Itoa(wp.Pid())
	w := &WorkerOnly{Store: sr.kind}
	if w.IdleRSS, err = processStatusBytes(pid, "VmRSS"); err != nil {
		return nil, err
	}
	c := client.New(sr.ready.Client, client.Options{TaskQueue: queue, Logger: sr.cfg.Logger})
	var parked []*client.Finalization
	defer func() { sr.abandon(ctx, parked) }()
	for _, target := range sr.cfg.WorkerParked {
		fs, err := sr.park(ctx, c, workerOnlyJob, len(parked)+1, target-len(parked))
		parked = append(parked, fs...)
		if err != nil {
			return nil, err
		}
		step := WorkerOnlyRSS{Parked: target}
		if step.Confirmed, err = sr.awaitVerifying(ctx, workerOnlyJob, target); err != nil {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(sr.cfg.ParkedSettle):
		}
		if step.RSS, err = processStatusBytes(pid, "VmRSS"); err != nil {
			return nil, err
		}
		if step.PeakRSS, err = processStatusBytes(pid, "VmHWM"); err != nil {
			return nil, err
		}
		fmt.Fprintf(sr.cfg.Progress, "%s: worker process (%s metrics) with %d parked: RSS %s, peak %s\n",
			sr.kind, metrics, target, mib(step.RSS), mib(step.PeakRSS))
		w.Steps = append(w.Steps, step)
	}
	return w, nil
}

// startWorkerProcess starts the worker binary on the run's servers and
// store, configured as an operator would (FINALIZER_* variables), and
// returns once it is ready.
func (sr *storeRun) startWorkerProcess(ctx context.Context, bin, queue string) (*proc.Process, string, error) {
	zc := sr.wcfg.Store.ZooKeeper
	return workerproc.Launch(ctx, bin, workerproc.Options{
		Env: []string{
			"FINALIZER_TEMPORAL_ADDRESS=" + sr.wcfg.Temporal.Address,
			"FINALIZER_TASK_QUEUE=" + queue,
			"FINALIZER_STORE=" + string(sr.kind),
			"FINALIZER_ZOOKEEPER_SERVERS=" + strings.Join(zc.Servers, ","),
			"FINALIZER_ZOOKEEPER_ROOT=" + zc.Root,
			"FINALIZER_EMBEDDED_PATH=" + filepath.Join(sr.dir, "worker-only-references.db"),
			"FINALIZER_STATE_BUCKET=" + sr.wcfg.StateBucket,
			"FINALIZER_RETAIN=" + strconv.Itoa(sr.cfg.Retain),
			"FINALIZER_LOG_LEVEL=warn",
		},
		Log: filepath.Join(sr.dir, "worker-only.log"),
	})
}
