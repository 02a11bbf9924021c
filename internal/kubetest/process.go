package kubetest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// process is one child (etcd or kube-apiserver) writing to its own log.
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	exited  chan struct{}
	err     error
}

// startProcess starts bin with args, stdout and stderr into logPath. The
// child gets its own process group and dies with the test binary
// (Pdeathsig), so an aborted test run leaves no server behind.
func startProcess(name, bin, logPath string, args []string) (*process, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	defer logFile.Close()
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// etcd reads every ETCD_* variable as a flag: keep the caller's out.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ETCD_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, logPath: logPath, exited: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	return p, nil
}

// running reports an early exit as an error.
func (p *process) running() error {
	select {
	case <-p.exited:
		return fmt.Errorf("%s exited: %v (log %s)", p.name, p.err, p.logPath)
	default:
		return nil
	}
}

// stop sends SIGTERM, then SIGKILL after grace.
func (p *process) stop(grace time.Duration) {
	if p == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	_ = p.cmd.Process.Signal(syscall.SIGCONT) // a frozen process takes its SIGTERM only once it runs
	select {
	case <-p.exited:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// signal sends sig to a running process.
func (p *process) signal(sig syscall.Signal) error {
	if err := p.running(); err != nil {
		return err
	}
	if err := p.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("signal %s: %w", p.name, err)
	}
	return nil
}

// tail returns the last n bytes of a log, for error messages.
func tail(path string, n int64) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	if int64(len(b)) > n {
		b = b[int64(len(b))-n:]
	}
	return string(b)
}
