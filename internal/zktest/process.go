package zktest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// process is one running ZooKeeper JVM.
type process struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

// launch starts QuorumPeerMain on cfgPath with its output appended to
// logPath, so that a restarted node keeps one log across its lives.
func launch(cfgPath, logPath string) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open zookeeper log: %w", err)
	}
	defer logFile.Close()
	cmd := exec.Command("java", "-Xms32m", "-Xmx256m", "-XX:+UseSerialGC",
		"-Dzookeeper.admin.enableServer=false", "-Dzookeeper.4lw.commands.whitelist=*",
		"-cp", jar+":"+loggingJar, "org.apache.zookeeper.server.quorum.QuorumPeerMain", cfgPath)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Own process group, so a dying test binary does not leave it behind
	// unnoticed and Kill reaches the JVM itself.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start zookeeper: %w", err)
	}
	p := &process{cmd: cmd, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	return p, nil
}

// stop sends SIGTERM and, after grace, SIGKILL; it waits for the exit.
func (p *process) stop(grace time.Duration) {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	// A paused node (Node.Pause) handles SIGTERM only once continued.
	_ = p.cmd.Process.Signal(syscall.SIGCONT)
	select {
	case <-p.exited:
	case <-time.After(grace):
		p.kill()
	}
}

// kill sends SIGKILL, a crash without any shutdown, and waits for the exit.
func (p *process) kill() {
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// running reports whether the process has not exited yet.
func (p *process) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// waitMode waits for a "Mode:" line from the srvr command at addr: ruok
// answers imok even before the server can serve, and an ensemble member
// answers with a mode only once it has joined a quorum.
func (p *process) waitMode(addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if !p.running() {
			return errors.New("zookeeper exited")
		}
		if mode, err := FourLetter(addr, "srvr"); err == nil && strings.Contains(mode, "Mode:") {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("not serving after %s", timeout)
}
