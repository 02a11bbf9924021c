package zktest

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Server is one running ZooKeeper process.
type Server struct {
	// Addr is host:port of the client port on loopback.
	Addr string
	// Dir holds the configuration, data and log.
	Dir    string
	cmd    *exec.Cmd
	exited chan struct{}
}

// StartServer starts a standalone server and waits until it serves.
func StartServer() (*Server, error) {
	if err := Ensure(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "zktest-")
	if err != nil {
		return nil, fmt.Errorf("start zookeeper: %w", err)
	}
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("start zookeeper: %w", err)
	}
	cfg := fmt.Sprintf("tickTime=500\ndataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\nmaxClientCnxns=0\nminSessionTimeout=1000\nmaxSessionTimeout=60000\n",
		filepath.Join(dir, "data"), port)
	cfgPath := filepath.Join(dir, "zoo.cfg")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		return nil, fmt.Errorf("start zookeeper: %w", err)
	}
	logFile, err := os.Create(filepath.Join(dir, "zookeeper.log"))
	if err != nil {
		return nil, fmt.Errorf("start zookeeper: %w", err)
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
	s := &Server{Addr: fmt.Sprintf("127.0.0.1:%d", port), Dir: dir, cmd: cmd, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.exited) }()
	if err := s.waitServing(30 * time.Second); err != nil {
		s.Stop()
		return nil, fmt.Errorf("start zookeeper (log %s): %w", logFile.Name(), err)
	}
	return s, nil
}

// Stop terminates the server and waits for it.
func (s *Server) Stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// Cleanup stops the server and removes its directory unless keep is set,
// in which case it prints where the log is.
func (s *Server) Cleanup(keep bool) {
	s.Stop()
	if keep {
		fmt.Fprintf(os.Stderr, "zktest: kept ZooKeeper log and data in %s\n", s.Dir)
		return
	}
	_ = os.RemoveAll(s.Dir)
}

// waitServing waits for a "Mode:" line from the srvr command: ruok answers
// imok even before the server can serve.
func (s *Server) waitServing(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return errors.New("zookeeper exited")
		default:
		}
		if mode, err := FourLetter(s.Addr, "srvr"); err == nil && strings.Contains(mode, "Mode:") {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("not serving after %s", timeout)
}

// FourLetter sends a four-letter command and returns the answer.
func FourLetter(addr, cmd string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte(cmd)); err != nil {
		return "", err
	}
	var b strings.Builder
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		b.WriteString(sc.Text() + "\n")
	}
	return b.String(), nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
