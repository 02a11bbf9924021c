package topology

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
)

// A process the topology runs: detached in a session of its own (so that
// it outlives `topology up` and a signal to the group reaches all of it),
// its output appended to Log, its pid in PIDFile. internal/testenv/servers/proc starts it;
// the signals here find it again by pid, from any later process. Marker is a string its
// command line contains (a path under the topology's directory), so that a
// recycled pid is never taken for it.
type process struct {
	Name    string   `json:"name"`
	Args    []string `json:"args"`
	Env     []string `json:"env,omitempty"`
	Log     string   `json:"log"`
	PIDFile string   `json:"pidFile"`
	Marker  string   `json:"marker"`
}

// children are the processes this process started: internal/testenv/servers/proc reaps
// them, so that a killed one does not linger as a zombie that kill(pid, 0)
// still finds.
var children = struct {
	sync.Mutex
	procs map[int]*proc.Process
}{procs: map[int]*proc.Process{}}

// start launches the process unless it runs already.
func (p *process) start() error {
	if p.pid() != 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p.Log), 0o755); err != nil {
		return err
	}
	cmd := exec.Command(p.Args[0], p.Args[1:]...)
	cmd.Env = append(os.Environ(), p.Env...)
	child, err := proc.Start(cmd, proc.Options{Name: p.Name, Log: p.Log, Detach: true,
		Header: fmt.Sprintf("=== topology: starting %s at %s\n", p.Name, time.Now().UTC().Format(time.RFC3339))})
	if err != nil {
		return err
	}
	children.Lock()
	children.procs[child.Pid()] = child
	children.Unlock()
	return os.WriteFile(p.PIDFile, []byte(strconv.Itoa(child.Pid())+"\n"), 0o644)
}

// pid is the running process's id, 0 when it does not run.
func (p *process) pid() int {
	b, err := os.ReadFile(p.PIDFile)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	if !alive(pid, p.Marker) {
		return 0
	}
	return pid
}

// alive: the pid runs (not a zombie) and its command line holds marker.
func alive(pid int, marker string) bool {
	children.Lock()
	child, ours := children.procs[pid]
	children.Unlock()
	if ours && !child.Running() {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
		return false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && bytes.Contains(cmdline, []byte(marker))
}

// kill sends SIGKILL to the process group, a crash, and waits for the
// exit; a process that does not run is an error: the crash did not happen.
func (p *process) kill() error { return p.signal(syscall.SIGKILL, 0) }

// stop sends SIGTERM to the process group and, after grace, SIGKILL; a
// process that does not run is an error.
func (p *process) stop(grace time.Duration) error { return p.signal(syscall.SIGTERM, grace) }

// shutdown stops the process if it runs (down: whatever is left).
func (p *process) shutdown(grace time.Duration) error {
	if p.pid() == 0 {
		return nil
	}
	return p.stop(grace)
}

// errNotRunning: a signal for a process that does not run.
var errNotRunning = errors.New("not running")

func (p *process) signal(sig syscall.Signal, grace time.Duration) error {
	pid := p.pid()
	if pid == 0 {
		return fmt.Errorf("%s: %w (pid file %s)", p.Name, errNotRunning, p.PIDFile)
	}
	_ = syscall.Kill(-pid, sig)
	if err := waitExit(pid, p.Marker, grace+10*time.Second); err != nil && sig != syscall.SIGKILL {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		if err := waitExit(pid, p.Marker, 10*time.Second); err != nil {
			return fmt.Errorf("%s: %w", p.Name, err)
		}
	} else if err != nil {
		return fmt.Errorf("%s: %w", p.Name, err)
	}
	_ = os.Remove(p.PIDFile)
	return nil
}

// freeze sends SIGSTOP or SIGCONT to the process group; a process that
// does not run is an error.
func (p *process) freeze(sig syscall.Signal) error {
	pid := p.pid()
	if pid == 0 {
		return fmt.Errorf("%s: %w (pid file %s)", p.Name, errNotRunning, p.PIDFile)
	}
	if err := syscall.Kill(-pid, sig); err != nil {
		return fmt.Errorf("%s: %v: %w", p.Name, sig, err)
	}
	return nil
}

func waitExit(pid int, marker string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for alive(pid, marker) {
		if time.Now().After(deadline) {
			return fmt.Errorf("pid %d still runs after %s", pid, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}
