package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

var (
	// ErrExited: the process has exited, a signal cannot reach it.
	ErrExited = errors.New("exited")
	// ErrKilled: Stop's grace ran out and the process was killed.
	ErrKilled = errors.New("killed")
)

// Options tune Start.
type Options struct {
	// Name names the process in errors; the command's base name if empty.
	Name string
	// Log, when set, receives the child's stdout and stderr, appended, so
	// that a process started again keeps one log across its lives.
	Log string
	// Header is written to Log before the child's own output.
	Header string
	// Detach starts the child in a session of its own without Pdeathsig:
	// it survives the caller (a tool that starts servers and exits).
	Detach bool
}

// Process is one child started by Start.
type Process struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error // Wait's result, set before done is closed
}

// Start starts cmd as the package doc describes. It sets cmd.SysProcAttr
// and, with Options.Log, cmd.Stdout and cmd.Stderr; the rest of cmd (Env,
// Dir, Stdin) is the caller's. exec.Cmd.Wait runs from the start and
// closes the pipes of cmd.StdoutPipe and StdinPipe at the exit: a caller
// that reads what the child wrote before it exited passes an os.Pipe.
func Start(cmd *exec.Cmd, opts Options) (*Process, error) {
	name := opts.Name
	if name == "" {
		name = filepath.Base(cmd.Path)
	}
	if opts.Log != "" {
		log, err := os.OpenFile(opts.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("start %s: open log: %w", name, err)
		}
		// The child holds its own descriptor from Start on.
		defer log.Close()
		if _, err := log.WriteString(opts.Header); err != nil {
			return nil, fmt.Errorf("start %s: write log: %w", name, err)
		}
		cmd.Stdout, cmd.Stderr = log, log
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if opts.Detach {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &Process{name: name, cmd: cmd, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	return p, nil
}

// Pid is the child's process id, also its process group's.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed once the child has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait waits for the exit and returns exec.Cmd.Wait's result.
func (p *Process) Wait() error {
	<-p.done
	return p.err
}

// Running reports whether the child has not exited yet.
func (p *Process) Running() bool { return p.Exited() == nil }

// Exited is nil while the child runs and, once it has exited, an error
// wrapping ErrExited and the exit's own error, if any.
func (p *Process) Exited() error {
	select {
	case <-p.done:
	default:
		return nil
	}
	if p.err == nil {
		return fmt.Errorf("%s %w", p.name, ErrExited)
	}
	return fmt.Errorf("%s %w: %w", p.name, ErrExited, p.err)
}

// Signal sends sig to the child's process group; an error wrapping
// ErrExited when the child has exited.
func (p *Process) Signal(sig syscall.Signal) error {
	if err := p.Exited(); err != nil {
		return err
	}
	if err := p.group(sig); err != nil {
		return fmt.Errorf("signal %s: %v: %w", p.name, sig, err)
	}
	return nil
}

// Stop sends SIGTERM and, after grace, SIGKILL, and waits for the exit:
// see the package doc for its result.
func (p *Process) Stop(grace time.Duration) error {
	if err := p.group(syscall.SIGTERM); err != nil {
		return fmt.Errorf("stop %s: %w", p.name, err)
	}
	_ = p.group(syscall.SIGCONT)
	select {
	case <-p.done:
		return p.termErr()
	case <-time.After(grace):
	}
	_ = p.group(syscall.SIGKILL)
	<-p.done
	return fmt.Errorf("stop %s: still running %s after SIGTERM: %w", p.name, grace, ErrKilled)
}

// Kill sends SIGKILL, a crash without any shutdown, and waits for the
// exit; a process that has exited already is left as it is.
func (p *Process) Kill() error {
	if err := p.group(syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill %s: %w", p.name, err)
	}
	<-p.done
	return nil
}

// group signals the process group unless the child has exited: once
// reaped, its pid may name another process. ESRCH is the same race lost.
func (p *Process) group(sig syscall.Signal) error {
	select {
	case <-p.done:
		return nil
	default:
	}
	if err := syscall.Kill(-p.cmd.Process.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// termErr is nil for a clean exit or a death by SIGTERM, else the exit.
func (p *Process) termErr() error {
	var exit *exec.ExitError
	if errors.As(p.err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGTERM {
			return nil
		}
	}
	if p.err != nil {
		return fmt.Errorf("stop %s: %w", p.name, p.err)
	}
	return nil
}
