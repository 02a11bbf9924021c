package flinkcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/freeport"
)

// Options describe a cluster.
type Options struct {
	// Dir holds the cluster's lib/, each process's configuration folder
	// and log/.
	Dir string
	// Lib is a distribution's lib/ (Lib's result).
	Lib string
	// Jars are added to the cluster's lib/ (a plugin).
	Jars []string
	// JavaOpts go on every JVM's command line (JavaOpts' result).
	JavaOpts []string
	// Config is the caller's configuration: high availability with its
	// ZooKeeper quorum, root and session timeout, checkpoint directories.
	// It overrides the package's defaults.
	Config Config
}

// Cluster is a running standalone session cluster: two JobManagers, one
// TaskManager, and a client configuration for CliFrontend.
type Cluster struct {
	JobManagers []*JobManager
	taskManager *node
	// client is the configuration folder of CliFrontend.
	client string
	config Config
	java   []string
}

// JobManager is one of the cluster's JobManager processes.
type JobManager struct {
	node
	// RESTPort serves Flink's REST API, which forwards to the leader.
	RESTPort int
}

// Name is the JobManager's name in logs and reports: jm-1, jm-2.
func (jm *JobManager) Name() string { return jm.name }

// Running reports whether its current life runs.
func (jm *JobManager) Running() bool { return jm.running() }

// Kill crashes it (SIGKILL): no shutdown, its ZooKeeper session expires.
func (jm *JobManager) Kill() error { return jm.kill() }

// Start starts a new life on the same configuration and ports (a
// supervisor restarting it) and returns once its REST endpoint serves,
// by which time it contends for leadership.
func (jm *JobManager) Start(ctx context.Context) error {
	if err := jm.start(ctx); err != nil {
		return err
	}
	return poll(ctx, 3*time.Minute, "until "+jm.name+"'s REST endpoint serves", func() (bool, error) {
		if !jm.running() {
			return false, fmt.Errorf("%s exited (log %s): %w", jm.name, jm.log, jm.process.Exited())
		}
		var config map[string]any
		return getJSON(ctx, fmt.Sprintf("http://127.0.0.1:%d/config", jm.RESTPort), &config) == nil, nil
	})
}

// Log is the path of its log, all lives appended.
func (jm *JobManager) Log() string { return jm.log }

// Start configures and starts a cluster: the first JobManager, once it
// leads the second (so the first is the leader), then the TaskManager,
// and returns once the TaskManager has registered.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	lib := filepath.Join(opts.Dir, "lib")
	if err := linkLib(lib, opts.Lib, opts.Jars); err != nil {
		return nil, err
	}
	for _, d := range []string{"log", "tmp"} {
		if err := os.MkdirAll(filepath.Join(opts.Dir, d), 0o755); err != nil {
			return nil, fmt.Errorf("start flink cluster: %w", err)
		}
	}
	c := &Cluster{
		config: defaults(opts.Dir).with(opts.Config),
		java:   append(append([]string{"java"}, opts.JavaOpts...), "-cp", filepath.Join(lib, "*")),
	}
	// An RPC and a REST port per JobManager: with a factory-class HA type
	// Flink binds jobmanager.rpc.port for every JobManager
	// (high-availability.jobmanager.port is honoured only for zookeeper),
	// so each has its own, and both keys name it so that both worlds bind
	// the same.
	ports, err := freeport.Ports(4)
	if err != nil {
		return nil, fmt.Errorf("start flink cluster: %w", err)
	}
	for i := range 2 {
		rpc, rest := strconv.Itoa(ports[2*i]), strconv.Itoa(ports[2*i+1])
		jm := &JobManager{RESTPort: ports[2*i+1], node: node{
			name: fmt.Sprintf("jm-%d", i+1), main: jobManagerMain, resources: "GET_JM_RESOURCE_PARAMS", java: c.java,
			conf: filepath.Join(opts.Dir, fmt.Sprintf("conf-jm-%d", i+1)),
			log:  filepath.Join(opts.Dir, "log", fmt.Sprintf("jm-%d.log", i+1)),
		}}
		if err := c.config.with(Config{"jobmanager.rpc.port": rpc, "high-availability.jobmanager.port": rpc, "rest.port": rest}).write(jm.conf); err != nil {
			return nil, err
		}
		c.JobManagers = append(c.JobManagers, jm)
	}
	c.taskManager = &node{name: "tm", main: taskManagerMain, resources: "GET_TM_RESOURCE_PARAMS", java: c.java,
		conf: filepath.Join(opts.Dir, "conf-tm"), log: filepath.Join(opts.Dir, "log", "tm.log")}
	c.client = filepath.Join(opts.Dir, "conf-client")
	for _, conf := range []string{c.taskManager.conf, c.client} {
		if err := c.config.write(conf); err != nil {
			return nil, err
		}
	}
	if err := c.startAll(ctx); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) startAll(ctx context.Context) error {
	if err := c.JobManagers[0].Start(ctx); err != nil {
		return err
	}
	if err := c.waitLeader(ctx, c.JobManagers[0]); err != nil {
		return err
	}
	if err := c.JobManagers[1].Start(ctx); err != nil {
		return err
	}
	if err := c.taskManager.start(ctx); err != nil {
		return err
	}
	return c.waitTaskManager(ctx)
}

// waitLeader waits until jm leads, or fails when it exited.
func (c *Cluster) waitLeader(ctx context.Context, jm *JobManager) error {
	return poll(ctx, 3*time.Minute, "until "+jm.name+" leads", func() (bool, error) {
		if !jm.running() {
			return false, fmt.Errorf("%s exited (log %s): %w", jm.name, jm.log, jm.process.Exited())
		}
		leader, err := c.Leader(ctx)
		return err == nil && leader == jm, nil
	})
}

// waitTaskManager waits until the TaskManager has registered with the
// leading ResourceManager.
func (c *Cluster) waitTaskManager(ctx context.Context) error {
	return poll(ctx, 3*time.Minute, "until the TaskManager registered", func() (bool, error) {
		if !c.taskManager.running() {
			return false, fmt.Errorf("the TaskManager exited (log %s): %w", c.taskManager.log, c.taskManager.process.Exited())
		}
		var tms struct {
			TaskManagers []struct{ ID string } `json:"taskmanagers"`
		}
		err := c.get(ctx, "/taskmanagers", &tms)
		return err == nil && len(tms.TaskManagers) > 0, nil
	})
}

// Stop stops every process, JobManagers last (the TaskManager's tasks are
// gone by then), and reports what did not stop by SIGTERM.
func (c *Cluster) Stop() error {
	var errs []error
	if c.taskManager != nil {
		errs = append(errs, c.taskManager.stop())
	}
	for _, jm := range c.JobManagers {
		errs = append(errs, jm.stop())
	}
	return errors.Join(errs...)
}

// Logs are the paths of the processes' logs, for a failed test to show.
func (c *Cluster) Logs() []string {
	logs := []string{c.taskManager.log}
	for _, jm := range c.JobManagers {
		logs = append(logs, jm.log)
	}
	return logs
}

// linkLib makes the cluster's lib/: links to the distribution's jars and
// to the extra ones, as a user copies a plugin into lib/.
func linkLib(lib, dist string, jars []string) error {
	if err := os.MkdirAll(lib, 0o755); err != nil {
		return fmt.Errorf("flink cluster lib: %w", err)
	}
	entries, err := filepath.Glob(filepath.Join(dist, "*.jar"))
	if err != nil {
		return fmt.Errorf("flink cluster lib: %w", err)
	}
	if len(entries) == 0 {
		return fmt.Errorf("flink cluster lib: no jars in %s", dist)
	}
	for _, jar := range append(entries, jars...) {
		abs, err := filepath.Abs(jar)
		if err != nil {
			return fmt.Errorf("flink cluster lib: %w", err)
		}
		if err := os.Symlink(abs, filepath.Join(lib, filepath.Base(jar))); err != nil {
			return fmt.Errorf("flink cluster lib: %w", err)
		}
	}
	return nil
}

// poll calls check every 200 ms until it reports done or fails, for at
// most timeout.
func poll(ctx context.Context, timeout time.Duration, what string, check func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		done, err := check()
		if err != nil {
			return fmt.Errorf("waiting %s: %w", what, err)
		}
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting %s: %w", what, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}
