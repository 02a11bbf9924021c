package flinkcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
)

// Main classes of what bin/ starts.
const (
	jobManagerMain  = "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint"
	taskManagerMain = "org.apache.flink.runtime.taskexecutor.TaskManagerRunner"
	cliMain         = "org.apache.flink.client.cli.CliFrontend"
	bashJavaUtils   = "org.apache.flink.runtime.util.bash.BashJavaUtils"
)

// stopGrace is how long a process has to shut down on SIGTERM.
const stopGrace = 30 * time.Second

// node is one Flink process: its configuration folder, its log, and the
// process of its current life.
type node struct {
	name, main, conf, log string
	// resources is BashJavaUtils' command for the process's memory flags.
	resources string
	java      []string // the cluster's java command up to the main class
	process   *proc.Process
}

// start starts the node's process as bin/ would: the JVM's memory flags
// and the dynamic configuration from Flink's own BashJavaUtils, from the
// same configuration folder.
func (n *node) start(ctx context.Context) error {
	jvm, dynamic, err := n.resourceParams(ctx)
	if err != nil {
		return err
	}
	args := append(append(append([]string{}, n.java[1:]...), jvm...),
		"-Dlog4j.configurationFile=file:"+filepath.Join(n.conf, "log4j.properties"), "-Dlog.file="+n.log,
		n.main, "--configDir", n.conf)
	args = append(args, dynamic...)
	cmd := exec.Command(n.java[0], args...)
	header := fmt.Sprintf("==== %s started %s: %s\n", n.name, time.Now().UTC().Format(time.RFC3339), strings.Join(cmd.Args, " "))
	p, err := proc.Start(cmd, proc.Options{Name: n.name, Log: n.log, Header: header})
	if err != nil {
		return err
	}
	n.process = p
	return nil
}

// resourceParams runs BashJavaUtils as bin/ does and returns its two
// results: the JVM's memory flags and the dynamic configuration (-D
// key=value) that goes after the main class.
func (n *node) resourceParams(ctx context.Context) (jvm, dynamic []string, err error) {
	args := append(append([]string{}, n.java[1:]...), bashJavaUtils, n.resources, "--configDir", n.conf)
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, n.java[0], args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, nil, fmt.Errorf("%s: %s: %w\n%s", n.name, n.resources, err, out.Bytes())
	}
	const prefix = "BASH_JAVA_UTILS_EXEC_RESULT:"
	var results []string
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, prefix) {
			results = append(results, strings.TrimPrefix(line, prefix))
		}
	}
	if len(results) != 2 {
		return nil, nil, fmt.Errorf("%s: %s printed %d results, not 2:\n%s", n.name, n.resources, len(results), out.Bytes())
	}
	return strings.Fields(results[0]), strings.Fields(results[1]), nil
}

// running reports whether the node's current life runs.
func (n *node) running() bool { return n.process != nil && n.process.Running() }

// kill ends the node's current life with SIGKILL: a crash.
func (n *node) kill() error {
	if n.process == nil {
		return nil
	}
	return n.process.Kill()
}

// stop ends the node's current life with SIGTERM, SIGKILL after a grace.
// A JVM that ran its shutdown hooks on SIGTERM exits with 128+15, its own
// way of dying by it.
func (n *node) stop() error {
	if n.process == nil {
		return nil
	}
	err := n.process.Stop(stopGrace)
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 128+int(syscall.SIGTERM) {
		return nil
	}
	return err
}
