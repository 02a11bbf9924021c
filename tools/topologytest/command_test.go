package topologytest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/serverbin"
)

// command is the finalizer-topology binary, built once for the test: the
// topology comes up, is looked at and goes down through it, each time in
// a process of its own, as an operator runs it from a shell.
type command struct {
	t   *testing.T
	bin string
}

func buildCommand(ctx context.Context, t *testing.T) command {
	bin := filepath.Join(t.TempDir(), "finalizer-topology")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/finalizer-topology")
	build.Dir = filepath.Join(serverbin.ScriptsDir(), "..")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build ./cmd/finalizer-topology: %s", out)
	return command{t: t, bin: bin}
}

// run runs `finalizer-topology args...`: its stdout, its progress on
// stderr logged.
func (c command) run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, c.bin, args...)
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, logWriter{c.t}
	err := cmd.Run()
	if err != nil {
		err = fmt.Errorf("finalizer-topology %s: %w", strings.Join(args, " "), err)
	}
	return stdout.String(), err
}

// printed is what `up` and `status` print: every part's address and pid.
type printed struct {
	pids     map[string]int    // by part: postgresql, temporal, zookeeper-N, worker-N
	addrs    map[string]string // the same keys
	cliEnv   []string
	cli      string
	stopped  []string
	rawLines string
}

var (
	pidRe     = regexp.MustCompile(`running pid (\d+)`)
	metricsRe = regexp.MustCompile(`metrics http://([^/ ]+)/metrics`)
)

func parsePrinted(t *testing.T, out string) printed {
	p := printed{pids: map[string]int{}, addrs: map[string]string{}, rawLines: out}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		part := f[0]
		switch {
		case part == "postgresql" || part == "temporal":
			p.addrs[part] = f[2]
		case strings.HasPrefix(part, "zookeeper-"):
			p.addrs[part] = f[1]
		case strings.HasPrefix(part, "worker-"):
			if m := metricsRe.FindStringSubmatch(line); m != nil {
				p.addrs[part] = m[1]
			}
		case part == "finalizer" && f[1] == "CLI":
			// finalizer CLI     env K=V ... /path/finalizer list --stuck
			for _, w := range f[3:] {
				if strings.Contains(w, "=") {
					p.cliEnv = append(p.cliEnv, w)
					continue
				}
				p.cli = w
				break
			}
			continue
		default:
			continue
		}
		if m := pidRe.FindStringSubmatch(line); m != nil {
			p.pids[part], _ = strconv.Atoi(m[1])
		} else if strings.Contains(line, "stopped") {
			p.stopped = append(p.stopped, part)
		}
	}
	require.NotEmpty(t, p.cli, "the CLI line in:\n%s", out)
	return p
}

// processesUnder lists the processes whose command line names dir (every
// process of the topology does: its binary, data or config is there).
func processesUnder(dir string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue // exited, not yet reaped by its parent
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(dir)) {
			out = append(out, fmt.Sprintf("%d %s", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
		}
	}
	return out
}

// busyPorts are the ports no listener can bind.
func busyPorts(ports []int) []int {
	var busy []int
	for _, p := range ports {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			busy = append(busy, p)
			continue
		}
		l.Close()
	}
	return busy
}

// down runs `finalizer-topology down` from a process of its own and checks
// that nothing of the topology runs any more and that every port it used
// is free again; `status` then finds no topology.
func (c command) down(ctx context.Context, dir string, ports []int) {
	t := c.t
	start := time.Now()
	out, err := c.run(ctx, "down", "-dir", dir)
	require.NoError(t, err, "%s", out)
	t.Logf("finalizer-topology down (%s): %s", time.Since(start).Round(time.Millisecond), strings.TrimSpace(out))
	assert.Eventually(t, func() bool { return len(processesUnder(dir)) == 0 }, 30*time.Second, 100*time.Millisecond,
		"every process of the topology is gone")
	assert.Empty(t, processesUnder(dir), "left running after down")
	assert.Eventually(t, func() bool { return len(busyPorts(ports)) == 0 }, 30*time.Second, 100*time.Millisecond,
		"every port is free")
	assert.Empty(t, busyPorts(ports), "ports still taken after down, of %v", ports)
	_, err = c.run(ctx, "status", "-dir", dir)
	assert.Error(t, err, "status after down: no topology")
}
