package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/zkfault"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/flinkcluster"
)

// scenario is one row pair of the table: what happens to a job, run in
// each world on the world's cluster, and what must hold between the
// plugin's row and stock's. More scenarios are more entries.
type scenario struct {
	name string
	// job are the job's arguments beyond its folder and interval: its own
	// settings (retention, state backend, restart strategy).
	job []string
	// claimMode is flink run --claimMode of the scenario's restores with
	// -s, Flink's default (no_claim) when empty.
	claimMode string
	// run drives the job's world through the scenario with the job, not
	// yet submitted, filling in r. An error is the world's failure to
	// get through it (a job that never runs again), reported in the row.
	run func(ctx context.Context, j *jobRun, r *row) error
	// check says what is wrong with the plugin's row, stock's being the
	// yardstick (checked to be exact itself).
	check func(plugin, stock row) error
	// core scenarios run on every Flink line, the others on 1.20 only:
	// a resume, a crash on each state backend, a cancel each way, each
	// outage, the lost write.
	core bool
}

// Job arguments of the scenarios.
var (
	retainOnCancellation = []string{"--retention", "RETAIN_ON_CANCELLATION"}
	deleteOnCancellation = []string{"--retention", "DELETE_ON_CANCELLATION"}
	incrementalRocksDB   = []string{"--state-backend", "rocksdb-incremental"}
	boundedRestarts      = []string{"--restart-attempts", "3"}
)

var scenarios = []scenario{
	{name: "stop-with-savepoint, resume -s", core: true, run: stopAndResume, check: exactOutput},
	{name: "kill -9 of the leading JobManager", core: true, run: killLeader, check: exactOutput},
	{name: "kill -9 of the leading JobManager, incremental RocksDB", core: true, job: incrementalRocksDB, run: killLeader,
		check: exactOutput},
	{name: "cancel after a JobManager failover, RETAIN_ON_CANCELLATION set by the job", core: true, job: retainOnCancellation,
		run: cancelAfterFailover, check: keepsWhatStockKeeps},
	{name: "cancel after a JobManager failover, RETAIN_ON_CANCELLATION, incremental RocksDB",
		job: append(append([]string{}, retainOnCancellation...), incrementalRocksDB...), run: cancelAfterFailover,
		check: keepsWhatStockKeeps},
	{name: "the worker away for 40 s during a kill -9 of the leading JobManager", core: true, run: awayDuringFailover(outageWorker),
		check: survivesCrashInOutage},
	{name: "Temporal away for 40 s while checkpointing", core: true, run: awayWhileCheckpointing(outageTemporal), check: survivesOutage},
	{name: "a checkpoint write to ZooKeeper whose request is lost, then kill -9 of the leading JobManager",
		run: writeLost(zkfault.DropWriteRequest), check: recoversWithoutPerson},
	{name: "a checkpoint write to ZooKeeper whose reply is lost, then kill -9 of the leading JobManager", core: true,
		run: writeLost(zkfault.DropWriteReply), check: recoversWithoutPerson},
	{name: "stop-with-savepoint, resume -s --claimMode claim", claimMode: "claim", run: stopAndResume, check: exactOutput},
	{name: "stop-with-savepoint, resume -s --claimMode legacy", claimMode: "legacy", run: stopAndResume,
		check: exactOutput},
	{name: "cancel, DELETE_ON_CANCELLATION set by the job", core: true, job: deleteOnCancellation, run: cancelJob,
		check: cleansAsStockCleans},
	{name: "cancel, the cluster's default NO_EXTERNALIZED_CHECKPOINTS", run: cancelJob, check: cleansAsStockCleans},
	{name: "the worker away for 40 s while checkpointing, 3 restarts allowed", job: boundedRestarts,
		run: awayWhileCheckpointing(outageWorker), check: survivesOutage},
	{name: "Temporal away for 40 s during a kill -9 of the leading JobManager, 3 restarts allowed",
		job: boundedRestarts, run: awayDuringFailover(outageTemporal), check: survivesCrashInOutage},
}

// What a scenario takes away (world.away), and for how long: longer than
// every bound of the plugin (its call timeout in the plugin world is 10 s).
const (
	outageWorker   = "worker"
	outageTemporal = "temporal"
	outage         = 40 * time.Second
)

// started submits the job and waits until it runs with a few checkpoints
// completed, the state every scenario disrupts.
func started(ctx context.Context, j *jobRun) error {
	if err := j.submit(ctx, ""); err != nil {
		return err
	}
	if _, err := j.waitRunning(ctx, time.Now(), time.Time{}); err != nil {
		return err
	}
	_, err := j.waitCompleted(ctx, 2)
	return err
}

// stopAndResume: flink stop (stop-with-savepoint), then flink run -s from
// the savepoint; the time to RUNNING is from the resubmission.
func stopAndResume(ctx context.Context, j *jobRun, r *row) error {
	w := j.w
	if err := started(ctx, j); err != nil {
		return err
	}
	savepoint, err := w.c.StopWithSavepoint(ctx, j.last(), w.savepoints())
	if err != nil {
		return err
	}
	if err := j.waitState(ctx, "FINISHED"); err != nil {
		return err
	}
	resumed := time.Now()
	if err := j.submit(ctx, savepoint); err != nil {
		return err
	}
	if r.toRunning, err = j.waitRunning(ctx, resumed, resumed); err != nil {
		return err
	}
	r.restored = j.restored(ctx)
	if _, err := j.waitCompleted(ctx, 0); err != nil {
		return err
	}
	if err := j.finish(ctx); err != nil {
		return err
	}
	return j.settle(ctx, r)
}

// killLeader: kill -9 of the leading JobManager mid-run; the standby
// recovers the job from the HA services' newest checkpoint.
func killLeader(ctx context.Context, j *jobRun, r *row) error {
	w := j.w
	if err := started(ctx, j); err != nil {
		return err
	}
	var err error
	if r.toRunning, r.restored, err = w.failover(ctx, j); err != nil {
		return err
	}
	if _, err := j.waitCompleted(ctx, 0); err != nil {
		return err
	}
	if err := j.finish(ctx); err != nil {
		return err
	}
	return j.settle(ctx, r)
}

// cancelAfterFailover: a job whose own code sets its retention (the
// cluster's default stays NO_EXTERNALIZED_CHECKPOINTS), a JobManager
// failover, then a cancel before any checkpoint completes under the new
// leader (the job's hold makes sure of it). What is left must be
// restorable: the job is resumed with -s from the newest checkpoint left
// and must end exact.
func cancelAfterFailover(ctx context.Context, j *jobRun, r *row) error {
	w := j.w
	if err := started(ctx, j); err != nil {
		return err
	}
	if err := j.control("hold", true); err != nil {
		return err
	}
	var err error
	if r.toRunning, r.restored, err = w.failover(ctx, j); err != nil {
		return err
	}
	if err := w.c.Cancel(ctx, j.last()); err != nil {
		return err
	}
	if err := j.waitState(ctx, "CANCELED"); err != nil {
		return err
	}
	if err := j.settle(ctx, r); err != nil {
		return err
	}
	if err := j.control("hold", false); err != nil {
		return err
	}
	from := w.newestCheckpoint(j.last())
	if from == "" {
		r.output = "no checkpoint left to resume from"
		return nil
	}
	if err := j.submit(ctx, from); err != nil {
		return err
	}
	if _, err := j.waitRunning(ctx, time.Now(), time.Time{}); err != nil {
		return err
	}
	if err := j.finish(ctx); err != nil {
		return err
	}
	r.output = exactness(j.dir)
	return nil
}

// writeLost: the seed's fault (FLINK-22494, FLINK-28265). The next write
// between the world's checkpoint writer and ZooKeeper (Flink's JobManager
// in stock's world, the worker in the plugin's) loses its request or its
// reply, the connection cut as a network fault cuts it; once a checkpoint
// completed after it, the leading JobManager is killed, so the standby
// recovers the job from what the store says. The time to RUNNING is from
// the crash.
func writeLost(f zkfault.Fault) func(ctx context.Context, j *jobRun, r *row) error {
	return func(ctx context.Context, j *jobRun, r *row) error {
		w := j.w
		if err := started(ctx, j); err != nil {
			return err
		}
		before, err := j.waitCompleted(ctx, 0)
		if err != nil {
			return err
		}
		select {
		case <-w.storeFault(f):
		case <-time.After(time.Minute):
			return errors.New("no write to ZooKeeper within a minute")
		case <-ctx.Done():
			return ctx.Err()
		}
		if _, err := j.waitCompleted(ctx, before); err != nil {
			return err
		}
		if r.toRunning, r.restored, err = w.failover(ctx, j); err != nil {
			return err
		}
		return completeAndFinish(ctx, j, r)
	}
}

// recoversWithoutPerson: exact output in the plugin's world, no step of a
// person, and no more directories left than stock leaves.
func recoversWithoutPerson(plugin, stock row) error {
	var err error
	if plugin.output != "exact" {
		err = fmt.Errorf("plugin world: output %s", plugin.output)
	}
	return errors.Join(err, leavesNoMoreThanStock(plugin, stock), noManualStep(plugin, ""))
}

// cancelJob: the job is canceled mid-run under its retention; nothing is
// resumed (a discarding retention leaves nothing to resume from), so the
// output is only checked to hold no record twice.
func cancelJob(ctx context.Context, j *jobRun, r *row) error {
	if err := started(ctx, j); err != nil {
		return err
	}
	if err := j.w.c.Cancel(ctx, j.last()); err != nil {
		return err
	}
	if err := j.waitState(ctx, "CANCELED"); err != nil {
		return err
	}
	if err := j.settle(ctx, r); err != nil {
		return err
	}
	r.output = "- (canceled)"
	if dup := duplicates(j.dir); dup != "" {
		r.output = dup
	}
	return nil
}

// cleansAsStockCleans: what stock deletes when the job ends, the plugin's
// world deletes too, by itself: no more directories left, no manual step.
func cleansAsStockCleans(plugin, stock row) error {
	err := errors.Join(leavesNoMoreThanStock(plugin, stock), noManualStep(plugin, ""))
	for _, r := range []row{stock, plugin} {
		if r.output != "- (canceled)" {
			err = errors.Join(err, fmt.Errorf("%s world: output %s", r.world, r.output))
		}
	}
	return err
}

// leavesNoMoreThanStock: the plugin's world left no more checkpoint
// directories than stock's.
func leavesNoMoreThanStock(plugin, stock row) error {
	if plugin.left > stock.left {
		return fmt.Errorf("the plugin left %d checkpoint directories, stock %d", plugin.left, stock.left)
	}
	return nil
}

// noManualStep: the plugin's world needed no step of a person but those
// starting with allowed ("" allows none).
func noManualStep(plugin row, allowed string) error {
	var err error
	for _, step := range plugin.steps {
		if allowed == "" || !strings.HasPrefix(step, allowed) {
			err = errors.Join(err, fmt.Errorf("the plugin's world needed: %s", step))
		}
	}
	return err
}

// exactOutput: the job's output is exact in both worlds.
func exactOutput(plugin, stock row) error {
	var errs []error
	for _, r := range []row{stock, plugin} {
		if r.output != "exact" {
			errs = append(errs, fmt.Errorf("%s world: output %s", r.world, r.output))
		}
	}
	return errors.Join(errs...)
}

// keepsWhatStockKeeps: exact output, and the plugin leaves at least the
// checkpoints stock keeps (a checkpoint the job asked to keep is kept):
// as many as stock leaves, up to the retention both worlds have. What
// stock leaves beyond it is not kept but left behind: the checkpoint its
// crashed leader had in flight, whose directory no one deletes.
func keepsWhatStockKeeps(plugin, stock row) error {
	err := exactOutput(plugin, stock)
	if kept := min(stock.left, retained); plugin.left < kept {
		err = errors.Join(err, fmt.Errorf("the plugin left %d checkpoint directories, stock %d (%d kept)", plugin.left, stock.left, kept))
	}
	return err
}

// awayDuringFailover: the finalizer's side away while the leading
// JobManager is killed. The standby's JobMaster waits for its claim off its
// main thread, the job INITIALIZING, for the whole outage, and no
// JobManager exits; once we are back the job recovers by itself. The time
// to RUNNING is from the crash, the outage included.
func awayDuringFailover(what string) func(ctx context.Context, j *jobRun, r *row) error {
	return func(ctx context.Context, j *jobRun, r *row) error {
		w := j.w
		if err := started(ctx, j); err != nil {
			return err
		}
		leader, err := w.c.Leader(ctx)
		if err != nil {
			return err
		}
		back, err := w.away(what)
		if err != nil {
			return err
		}
		killed := time.Now()
		if err := leader.Kill(); err != nil {
			return errors.Join(err, back())
		}
		runningAt, err := outlast(ctx, j, leader)
		if err := errors.Join(err, back()); err != nil {
			return err
		}
		if runningAt.IsZero() {
			if _, err := j.waitRunning(ctx, killed, killed); err != nil {
				return err
			}
			runningAt = time.Now()
		}
		r.toRunning, r.restored = runningAt.Sub(killed), j.restored(ctx)
		if err := leader.Start(ctx); err != nil {
			return err
		}
		return completeAndFinish(ctx, j, r)
	}
}

// awayWhileCheckpointing: the finalizer's side away while the job runs and
// checkpoints. Checkpoints wait (the one in flight fails, as against an
// unavailable checkpoint storage), the job is never failed, no JobManager
// exits; once we are back it checkpoints again.
func awayWhileCheckpointing(what string) func(ctx context.Context, j *jobRun, r *row) error {
	return func(ctx context.Context, j *jobRun, r *row) error {
		w := j.w
		if err := started(ctx, j); err != nil {
			return err
		}
		back, err := w.away(what)
		if err != nil {
			return err
		}
		_, err = outlast(ctx, j, nil)
		if err := errors.Join(err, back()); err != nil {
			return err
		}
		return completeAndFinish(ctx, j, r)
	}
}

// outlast waits out the world's outage, failing when a JobManager other than
// crashed exits or the job fails meanwhile, and returns when the job was
// first seen RUNNING again, restored after the crash (zero when it was
// not, or when nothing crashed).
func outlast(ctx context.Context, j *jobRun, crashed *flinkcluster.JobManager) (time.Time, error) {
	var runningAt time.Time
	for end := time.Now().Add(j.w.outage); time.Now().Before(end); {
		for _, jm := range j.w.c.JobManagers {
			if jm != crashed && !jm.Running() {
				return runningAt, fmt.Errorf("%s exited while we were away (log %s)", jm.Name(), jm.Log())
			}
		}
		if job, err := j.w.c.Job(ctx, j.last()); err == nil {
			if job.State == "FAILED" {
				return runningAt, errors.New("the job FAILED while we were away")
			}
			if runningAt.IsZero() && crashed != nil && job.Running() {
				if cp, err := j.w.c.Checkpoints(ctx, j.last()); err == nil && cp.Latest.Restored != nil {
					runningAt = time.Now()
				}
			}
		}
		select {
		case <-ctx.Done():
			return runningAt, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return runningAt, nil
}

// completeAndFinish: a checkpoint completes again, the job ends, the
// world's operator settles.
func completeAndFinish(ctx context.Context, j *jobRun, r *row) error {
	if _, err := j.waitCompleted(ctx, 0); err != nil {
		return err
	}
	if err := j.finish(ctx); err != nil {
		return err
	}
	return j.settle(ctx, r)
}

// survivesOutage: as survivesCrashInOutage, and the plugin's world leaves
// no more than stock: our outage leaves nothing behind.
func survivesOutage(plugin, stock row) error {
	return errors.Join(survivesCrashInOutage(plugin, stock), leavesNoMoreThanStock(plugin, stock))
}

// survivesCrashInOutage: exact output in both worlds, and the plugin's
// world needed no person: no JobManager restarted by hand, no step but the
// scheduled reconciler's. What is left is reported, not compared: a crash
// leaves the checkpoint its leader had in flight, as stock's crash does,
// and with the worker away the new leader's claim may depose that
// checkpoint's finalization, whose files then stay (only the standing
// claim deletes), reported by the reconciler.
func survivesCrashInOutage(plugin, stock row) error {
	return errors.Join(exactOutput(plugin, stock), noManualStep(plugin, "finalizer reconcile"))
}
