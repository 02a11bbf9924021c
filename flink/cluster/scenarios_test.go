package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// scenario is one row pair of the table: what happens to a job, run in
// each world on the world's cluster, and what must hold between the
// plugin's row and stock's. More scenarios are more entries (next: the
// worker away, Temporal away, a dropped write, incremental RocksDB, a
// bounded restart strategy).
type scenario struct {
	name string
	// job are the job's arguments beyond its folder and interval: its own
	// settings (retention, state backend).
	job []string
	// run drives the job's world through the scenario with the job, not
	// yet submitted, filling in r. An error is the world's failure to
	// get through it (a job that never runs again), reported in the row.
	run func(ctx context.Context, j *jobRun, r *row) error
	// check says what is wrong with the plugin's row, stock's being the
	// yardstick (checked to be exact itself).
	check func(plugin, stock row) error
}

// Job arguments of the scenarios.
var (
	retainOnCancellation = []string{"--retention", "RETAIN_ON_CANCELLATION"}
	incrementalRocksDB   = []string{"--state-backend", "rocksdb-incremental"}
)

var scenarios = []scenario{
	{name: "stop-with-savepoint, resume -s", run: stopAndResume, check: exactOutput},
	{name: "kill -9 of the leading JobManager", run: killLeader, check: exactOutput},
	{name: "kill -9 of the leading JobManager, incremental RocksDB", job: incrementalRocksDB, run: killLeader,
		check: exactOutput},
	{name: "cancel after a JobManager failover, RETAIN_ON_CANCELLATION set by the job", job: retainOnCancellation,
		run: cancelAfterFailover, check: keepsWhatStockKeeps},
	{name: "cancel after a JobManager failover, RETAIN_ON_CANCELLATION, incremental RocksDB",
		job: append(append([]string{}, retainOnCancellation...), incrementalRocksDB...), run: cancelAfterFailover,
		check: keepsWhatStockKeeps},
}

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
// checkpoints stock leaves (a checkpoint the job asked to keep is kept).
func keepsWhatStockKeeps(plugin, stock row) error {
	err := exactOutput(plugin, stock)
	if plugin.left < stock.left {
		err = errors.Join(err, fmt.Errorf("the plugin left %d checkpoint directories, stock %d", plugin.left, stock.left))
	}
	return err
}
