package devserver

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// stopGrace is how long Stop waits after SIGTERM before it sends SIGKILL.
const stopGrace = 10 * time.Second

// process is one running `temporal server start-dev`.
type process struct {
	cmd    *exec.Cmd
	exited chan struct{}
	err    error // Wait's result, set before exited is closed
}

// launch starts the server with its output appended to logPath. The child
// gets its own process group (a signal reaches all of it, and a Ctrl-C in
// the dev command's terminal does not hit the server before the command
// stops it in order) and dies with its parent (Pdeathsig), so a test binary
// that is killed leaves no server behind.
func launch(bin string, args []string, logPath string) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open server log: %w", err)
	}
	defer logFile.Close()
	fmt.Fprintf(logFile, "=== devserver %s: %s %s\n",
		time.Now().Format(time.RFC3339Nano), bin, strings.Join(args, " "))
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p := &process{cmd: cmd, exited: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	return p, nil
}

// signal sends sig to the whole process group.
func (p *process) signal(sig syscall.Signal) error {
	err := syscall.Kill(-p.cmd.Process.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil // already gone
	}
	return err
}

// exitErr reports an exit that already happened, nil while running.
func (p *process) exitErr() error {
	select {
	case <-p.exited:
		if p.err == nil {
			return errors.New("server exited")
		}
		return fmt.Errorf("server exited: %w", p.err)
	default:
		return nil
	}
}

// stop sends SIGTERM and, after grace, SIGKILL. It reports an error when
// the server had to be killed or exited with a failure.
func (p *process) stop(grace time.Duration) error {
	if err := p.signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("stop server: %w", err)
	}
	select {
	case <-p.exited:
		return p.termErr()
	case <-time.After(grace):
	}
	_ = p.signal(syscall.SIGKILL)
	<-p.exited
	return fmt.Errorf("stop server: still running %s after SIGTERM, killed", grace)
}

// termErr is nil for a clean exit or a death by our SIGTERM.
func (p *process) termErr() error {
	var exit *exec.ExitError
	if errors.As(p.err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGTERM {
			return nil
		}
		return fmt.Errorf("stop server: %w", p.err)
	}
	return p.err
}

// kill sends SIGKILL and waits for the exit.
func (p *process) kill() error {
	if err := p.signal(syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill server: %w", err)
	}
	<-p.exited
	return nil
}
