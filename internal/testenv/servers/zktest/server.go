package zktest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/freeport"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
)

// Server is one running standalone ZooKeeper process.
type Server struct {
	// Addr is host:port of the client port on loopback.
	Addr string
	// Dir holds the configuration, data and log.
	Dir     string
	process *proc.Process
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
	port, err := freeport.Port()
	if err != nil {
		return nil, fmt.Errorf("start zookeeper: %w", err)
	}
	cfgPath := filepath.Join(dir, "zoo.cfg")
	if err := writeConfig(cfgPath, filepath.Join(dir, "data"), port, ""); err != nil {
		return nil, fmt.Errorf("start zookeeper: %w", err)
	}
	logPath := filepath.Join(dir, "zookeeper.log")
	p, err := launch(cfgPath, logPath)
	if err != nil {
		return nil, err
	}
	s := &Server{Addr: fmt.Sprintf("127.0.0.1:%d", port), Dir: dir, process: p}
	if err := WaitServing(s.Addr, p.Running, 30*time.Second); err != nil {
		s.Stop()
		return nil, fmt.Errorf("start zookeeper (log %s): %w", logPath, err)
	}
	return s, nil
}

// Stop terminates the server and waits for it.
func (s *Server) Stop() { _ = s.process.Stop(stopGrace) }

// Restart stops the server if it runs and starts it again on the same
// data and port, so clients reconnect to the same Addr (their sessions
// survive if they come back within the session timeout).
func (s *Server) Restart() error {
	s.Stop()
	cfgPath, logPath := filepath.Join(s.Dir, "zoo.cfg"), filepath.Join(s.Dir, "zookeeper.log")
	p, err := launch(cfgPath, logPath)
	if err != nil {
		return err
	}
	s.process = p
	if err := WaitServing(s.Addr, p.Running, 30*time.Second); err != nil {
		return fmt.Errorf("restart zookeeper (log %s): %w", logPath, err)
	}
	return nil
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
