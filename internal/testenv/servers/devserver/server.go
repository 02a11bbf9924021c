package devserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
)

// startAttempts covers the rare race where another process binds a port
// between freePort and the server's own bind.
const startAttempts = 3

// Server is one running dev server. Its fields do not change across
// Restart.
type Server struct {
	// HostPort is the frontend gRPC address, for client.Options.HostPort.
	HostPort string
	// UIAddress is the Web UI's URL, empty when Options.UI is off.
	UIAddress string
	// Namespace is the namespace the server was checked ready for.
	Namespace string
	// DBFile is the SQLite database file.
	DBFile string
	// LogPath is the server's log; every start appends to it.
	LogPath string

	cli     string
	opts    Options
	ports   ports
	saTypes map[string]enumspb.IndexedValueType
	tempDir string // created by StartServer, removed by Cleanup

	mu   sync.Mutex
	proc *proc.Process
}

// StartServer starts a dev server and returns once it serves (see the
// package doc). The server runs until Stop or Kill, or until this process
// dies; ctx bounds the start only.
func StartServer(ctx context.Context, opts Options) (*Server, error) {
	if err := realserver.Refuse("Temporal dev server"); err != nil {
		return nil, err
	}
	saTypes, err := opts.searchAttributeTypes()
	if err != nil {
		return nil, fmt.Errorf("start temporal dev server: %w", err)
	}
	cli := opts.CLIPath
	if cli == "" {
		if cli, err = EnsureCLI(ctx, opts.Progress); err != nil {
			return nil, fmt.Errorf("start temporal dev server: %w", err)
		}
	}
	s := &Server{Namespace: opts.namespace(), cli: cli, opts: opts, saTypes: saTypes}
	if err := s.prepareFiles(); err != nil {
		s.removeTemp()
		return nil, fmt.Errorf("start temporal dev server: %w", err)
	}
	for attempt := 1; ; attempt++ {
		if s.ports, err = pickPorts(opts); err != nil {
			s.removeTemp()
			return nil, fmt.Errorf("start temporal dev server: %w", err)
		}
		s.HostPort = fmt.Sprintf("127.0.0.1:%d", s.ports.frontend)
		s.UIAddress = ""
		if opts.UI {
			s.UIAddress = fmt.Sprintf("http://127.0.0.1:%d", s.ports.ui)
		}
		err = s.start(ctx)
		if err == nil {
			return s, nil
		}
		fixed := opts.Port != 0 && (!opts.UI || opts.UIPort != 0)
		if attempt == startAttempts || fixed || !s.lostPortRace() {
			// The folder is kept: its log says why the server failed.
			return nil, fmt.Errorf("start temporal dev server (log %s): %w", s.LogPath, err)
		}
	}
}

// prepareFiles settles the database and log paths, making a temporary
// folder for whichever the caller left empty.
func (s *Server) prepareFiles() error {
	if s.opts.DBFile == "" || s.opts.LogDir == "" {
		dir, err := os.MkdirTemp("", "devserver-")
		if err != nil {
			return err
		}
		s.tempDir = dir
	}
	s.DBFile = filepath.Join(s.tempDir, "temporal.db")
	if s.opts.DBFile != "" {
		abs, err := filepath.Abs(s.opts.DBFile)
		if err != nil {
			return err
		}
		s.DBFile = abs
		// The dev server creates the file but not its folder.
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return err
		}
	}
	logDir := s.tempDir
	if s.opts.LogDir != "" {
		logDir = s.opts.LogDir
		if err := os.MkdirAll(logDir, 0o755); err != nil {
			return err
		}
	}
	// A unique name: several servers may share one LogDir.
	f, err := os.CreateTemp(logDir, "temporal-*.log")
	if err != nil {
		return err
	}
	s.LogPath = f.Name()
	return f.Close()
}

// start launches the process and waits until it is ready; on failure the
// process is killed.
func (s *Server) start(ctx context.Context) error {
	p, err := launch(s.cli, s.opts.args(s.DBFile, s.ports), s.LogPath)
	if err != nil {
		return err
	}
	if err := s.waitReady(ctx, p); err != nil {
		_ = p.Kill()
		return err
	}
	s.mu.Lock()
	s.proc = p
	s.mu.Unlock()
	return nil
}

// lostPortRace reports whether the last start failed because a port was
// taken, from the CLI's message in the log.
func (s *Server) lostPortRace() bool {
	b, err := os.ReadFile(s.LogPath)
	if err != nil {
		return false
	}
	log := string(b)
	if i := strings.LastIndex(log, "=== devserver"); i >= 0 {
		log = log[i:]
	}
	return strings.Contains(log, "address already in use")
}

// PID is the server's process id (0 when stopped), e.g. to read its RSS.
func (s *Server) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil || !s.proc.Running() {
		return 0
	}
	return s.proc.Pid()
}

// Stop sends SIGTERM and waits; after 10 s it sends SIGKILL and reports
// an error. Stopping a stopped server is a no-op.
func (s *Server) Stop() error {
	p := s.take()
	if p == nil {
		return nil
	}
	return p.Stop(stopGrace)
}

// Kill sends SIGKILL, a crash without any shutdown, and waits for the exit.
func (s *Server) Kill() error {
	p := s.take()
	if p == nil {
		return nil
	}
	return p.Kill()
}

// Restart stops the server if it runs (SIGTERM; call Kill first to test a
// crash) and starts it again on the same database file and ports, so
// clients and workers reconnect to the same HostPort.
func (s *Server) Restart(ctx context.Context) error {
	if err := s.Stop(); err != nil {
		return fmt.Errorf("restart temporal dev server (log %s): %w", s.LogPath, err)
	}
	if err := s.start(ctx); err != nil {
		return fmt.Errorf("restart temporal dev server (log %s): %w", s.LogPath, err)
	}
	return nil
}

// Cleanup stops the server and removes the temporary folder StartServer
// made (never a caller's DBFile or LogDir). With keep set (a test failed)
// the folder stays for a post-mortem: see LogPath and DBFile.
func (s *Server) Cleanup(keep bool) error {
	if !keep && s.opts.DBFile == "" {
		// The database is deleted next: a graceful shutdown (~2 s) would
		// only slow every test down.
		err := s.Kill()
		s.removeTemp()
		return err
	}
	err := s.Stop()
	if !keep {
		s.removeTemp()
	}
	return err
}

func (s *Server) removeTemp() {
	if s.tempDir != "" {
		_ = os.RemoveAll(s.tempDir)
	}
}

// take detaches the current process, so that Stop, Kill and Restart from
// different goroutines never signal one process twice.
func (s *Server) take() *proc.Process {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.proc
	s.proc = nil
	return p
}
