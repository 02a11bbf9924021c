package cluster_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/flinkcluster"
)

// interval is the job's checkpoint interval, as in the setup.
const interval = time.Second

// waitLimit bounds every wait for the cluster: what takes longer is the
// world's failure, reported, not the harness's.
const waitLimit = 3 * time.Minute

// jobRun is one job of a scenario in a world: the folder of its controls
// and committed output (the job's --dir) and the Flink job IDs of its
// submissions (a resume with -s is another).
type jobRun struct {
	w    *world
	dir  string
	args []string
	// claimMode is the scenario's flink run --claimMode for a restore,
	// Flink's default when empty.
	claimMode string
	ids       []string
}

// newJob is a job of the world whose folder is dir, with the scenario's
// arguments; nothing runs before its submit.
func (w *world) newJob(dir string, args ...string) *jobRun {
	return &jobRun{w: w, dir: dir, args: append([]string{"--dir", dir, "--interval", fmt.Sprint(interval.Milliseconds())}, args...)}
}

// last is the job ID of the newest submission.
func (j *jobRun) last() string { return j.ids[len(j.ids)-1] }

// submit runs the job with flink run -d, from a savepoint or retained
// checkpoint when from is set, in the job's claim mode.
func (j *jobRun) submit(ctx context.Context, from string) error {
	restore := flinkcluster.Restore{From: from}
	if from != "" {
		restore.ClaimMode = j.claimMode
	}
	id, err := j.w.c.Run(ctx, jarsBuilt.job, restore, j.args...)
	if err != nil {
		return err
	}
	j.ids = append(j.ids, id)
	return nil
}

// waitRunning waits until the newest submission and all its tasks run and,
// when restoredSince is set, run restored at or after it (the REST API of
// a JobManager that has not noticed a failover yet may still show the
// job running as before), and returns the time since start.
func (j *jobRun) waitRunning(ctx context.Context, start, restoredSince time.Time) (time.Duration, error) {
	err := j.poll(ctx, "the job RUNNING", func() bool {
		job, err := j.w.c.Job(ctx, j.last())
		if err != nil || !job.Running() {
			return false
		}
		if restoredSince.IsZero() {
			return true
		}
		cp, err := j.w.c.Checkpoints(ctx, j.last())
		return err == nil && cp.Latest.Restored != nil && cp.Latest.Restored.RestoreTimestamp >= restoredSince.UnixMilli()
	})
	return time.Since(start), err
}

// waitCompleted waits until the newest submission completed a checkpoint
// above id and returns the newest completed.
func (j *jobRun) waitCompleted(ctx context.Context, above int64) (int64, error) {
	var newest int64
	err := j.poll(ctx, fmt.Sprintf("a checkpoint above %d completed", above), func() bool {
		cp, err := j.w.c.Checkpoints(ctx, j.last())
		if err != nil || cp.Latest.Completed == nil {
			return false
		}
		newest = cp.Latest.Completed.ID
		return newest > above
	})
	return newest, err
}

// waitState waits until the newest submission is in a state (FINISHED,
// CANCELED).
func (j *jobRun) waitState(ctx context.Context, state string) error {
	return j.poll(ctx, "the job "+state, func() bool {
		job, err := j.w.c.Job(ctx, j.last())
		return err == nil && job.State == state
	})
}

// restored names the checkpoint the newest submission restored from.
func (j *jobRun) restored(ctx context.Context) string {
	cp, err := j.w.c.Checkpoints(ctx, j.last())
	switch {
	case err != nil:
		return "? (" + err.Error() + ")"
	case cp.Latest.Restored == nil:
		return "none"
	case cp.Latest.Restored.IsSavepoint:
		return fmt.Sprintf("savepoint %d", cp.Latest.Restored.ID)
	default:
		return fmt.Sprintf("chk-%d", cp.Latest.Restored.ID)
	}
}

// control creates or removes one of the job's control files (release,
// hold).
func (j *jobRun) control(name string, on bool) error {
	path := filepath.Join(j.dir, name)
	if on {
		return os.WriteFile(path, nil, 0o644)
	}
	return os.Remove(path)
}

// finish releases the source and waits until the newest submission
// finished, its last records committed by its final checkpoint.
func (j *jobRun) finish(ctx context.Context) error {
	if err := j.control("release", true); err != nil {
		return err
	}
	return j.waitState(ctx, "FINISHED")
}

// settle waits until the world has done by itself what the jobs' end
// asks of it, runs the world's operator routine and fills in what a row
// says of the job at rest: the directories left of every submission,
// whether the output is exact, and the routine as a manual step when it
// deleted anything (the world needed it); what the world deleted by itself
// is no step.
func (j *jobRun) settle(ctx context.Context, r *row) error {
	if j.w.ended != nil {
		if err := j.w.ended(ctx, j.ids); err != nil {
			return err
		}
	}
	before := j.w.checkpointDirs(j.ids...)
	step, err := j.w.settle(ctx)
	if err != nil {
		return err
	}
	r.left = j.w.checkpointDirs(j.ids...)
	if step != "" && r.left != before {
		r.manual(fmt.Sprintf("%s (deleted %d of %d)", step, before-r.left, before))
	}
	r.output = exactness(j.dir)
	return nil
}

func (j *jobRun) poll(ctx context.Context, what string, done func() bool) error {
	ctx, cancel := context.WithTimeout(ctx, waitLimit)
	defer cancel()
	for !done() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s world: %s within %s: %w", j.w.name, what, waitLimit, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
	return nil
}

// failover crashes the leading JobManager (kill -9), waits until the
// job's newest submission runs again, restored by the other, and starts
// the crashed one again as a supervisor would, now the standby. It returns
// the time from the crash to RUNNING and the restored checkpoint.
func (w *world) failover(ctx context.Context, j *jobRun) (time.Duration, string, error) {
	leader, err := w.c.Leader(ctx)
	if err != nil {
		return 0, "", err
	}
	killed := time.Now()
	if err := leader.Kill(); err != nil {
		return 0, "", err
	}
	toRunning, err := j.waitRunning(ctx, killed, killed)
	if err != nil {
		return 0, "", err
	}
	restored := j.restored(ctx)
	return toRunning, restored, leader.Start(ctx)
}
