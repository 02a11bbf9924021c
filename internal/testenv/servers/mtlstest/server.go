package mtlstest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	sdkclient "go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/freeport"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/serverbin"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/serverconfig"
)

// Namespace is the namespace Start registers, with the finalizer's search
// attributes.
const Namespace = "default"

// Server is a running temporal-server with an mTLS frontend.
type Server struct {
	// Frontend is the gRPC address, 127.0.0.1:port.
	Frontend string
	PKI      PKI
	Log      string
	proc     *proc.Process
}

// dynamicConfig lets a search attribute registered a moment ago be used
// at once, as the dev server does.
const dynamicConfig = `system.forceSearchAttributesCacheRefreshOnRead:
  - value: true
`

// Options change the server a test gets.
type Options struct {
	// MaxConnectionAge makes the frontend send every client connection
	// away after it (frontend.keepAliveMaxConnectionAge), so that new calls
	// dial and shake hands again; calls in flight get 30 s more. Zero keeps
	// the server's default.
	MaxConnectionAge time.Duration
}

// Start starts a server for one test in a folder of the test's own and
// stops it when the test ends; under -short it skips tb. A cold start
// builds temporal-server first (progress on stderr).
func Start(tb testing.TB) *Server { return StartWith(tb, Options{}) }

// StartWith is Start with options.
func StartWith(tb testing.TB, opts Options) *Server {
	tb.Helper()
	realserver.Require(tb, "temporal-server")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := start(ctx, tb.TempDir(), opts, os.Stderr)
	if err != nil {
		tb.Fatalf("mtlstest: %v", err)
	}
	tb.Cleanup(s.Stop)
	return s
}

// start generates a PKI in dir, starts the server (its log in dir) and
// returns once the namespace serves with the finalizer's search
// attributes. progress receives the server build's output when it is not
// cached yet.
func start(ctx context.Context, dir string, opts Options, progress io.Writer) (*Server, error) {
	bin, err := serverbin.Ensure(ctx, progress)
	if err != nil {
		return nil, err
	}
	pki, err := NewPKI(dir)
	if err != nil {
		return nil, err
	}
	ports, err := freeport.Low(9)
	if err != nil {
		return nil, err
	}
	confDir := filepath.Join(dir, "config")
	if err := os.MkdirAll(confDir, 0o755); err != nil {
		return nil, err
	}
	dc := filepath.Join(confDir, "dynamicconfig.yaml")
	dcText := dynamicConfig
	if age := opts.MaxConnectionAge; age > 0 {
		dcText += fmt.Sprintf("frontend.keepAliveMaxConnectionAge:\n  - value: %s\nfrontend.keepAliveMaxConnectionAgeGrace:\n  - value: 30s\n", age)
	}
	if err := os.WriteFile(dc, []byte(dcText), 0o644); err != nil {
		return nil, err
	}
	// In memory: one test's server keeps nothing.
	store := serverconfig.SQL{Plugin: "sqlite", Database: "default", Addr: "localhost",
		Attributes: map[string]string{"mode": "memory", "cache": "private"}, MaxConns: 1}
	yaml, err := serverconfig.Render(serverconfig.Config{
		LogLevel: "warn", HistoryShards: 1, Default: store, Visibility: store, Ports: serverconfig.PortsFrom(ports),
		// The frontend requires client certificates; the system worker
		// dials it with the client's.
		TLS: &serverconfig.TLS{CAFile: pki.CAFile, ServerName: pki.ServerName, ServerCert: pki.ServerCert, ServerKey: pki.ServerKey,
			ClientCert: pki.ClientCert, ClientKey: pki.ClientKey},
		DynamicConfigFile: dc,
	})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(confDir, "mtls.yaml"), yaml, 0o644); err != nil {
		return nil, err
	}
	s := &Server{Frontend: fmt.Sprintf("127.0.0.1:%d", ports[0]), PKI: pki, Log: filepath.Join(dir, "temporal-server.log")}
	s.proc, err = proc.Start(exec.Command(filepath.Join(bin, "temporal-server"), "--root", dir, "--config", "config", "--env", "mtls",
		"--allow-no-auth", "start"), proc.Options{Name: "temporal-server", Log: s.Log})
	if err != nil {
		return nil, err
	}
	if err := s.setup(ctx); err != nil {
		s.Stop()
		return nil, fmt.Errorf("temporal-server with mTLS at %s (log %s): %w", s.Frontend, s.Log, err)
	}
	return s, nil
}

// Stop kills the server and waits for it.
func (s *Server) Stop() { _ = s.proc.Kill() }

// ClientTLS is the TLS configuration of a client holding the client
// certificate (with cert) or none.
func (s *Server) ClientTLS(cert bool) (*tls.Config, error) {
	ca, err := os.ReadFile(s.PKI.CAFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	c := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if cert {
		pair, err := tls.LoadX509KeyPair(s.PKI.ClientCert, s.PKI.ClientKey)
		if err != nil {
			return nil, err
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}

// setup registers the namespace and the search attributes, retrying until
// the server serves them.
func (s *Server) setup(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	tlsConfig, err := s.ClientTLS(true)
	if err != nil {
		return err
	}
	var c sdkclient.Client
	defer func() {
		if c != nil {
			c.Close()
		}
	}()
	step := func() error {
		if c == nil {
			if c, err = sdkclient.DialContext(ctx, sdkclient.Options{
				HostPort: s.Frontend, Namespace: Namespace,
				Logger:            sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
				ConnectionOptions: sdkclient.ConnectionOptions{TLS: tlsConfig, GetSystemInfoTimeout: 5 * time.Second},
			}); err != nil {
				return err
			}
		}
		_, err := c.WorkflowService().RegisterNamespace(ctx, &workflowservice.RegisterNamespaceRequest{
			Namespace: Namespace, WorkflowExecutionRetentionPeriod: durationpb.New(24 * time.Hour)})
		if _, exists := errors.AsType[*serviceerror.NamespaceAlreadyExists](err); err != nil && !exists {
			return fmt.Errorf("register namespace: %w", err)
		}
		attrs := map[string]enums.IndexedValueType{}
		for name, typ := range contract.SearchAttributes() {
			attrs[name] = enums.IndexedValueType(enums.IndexedValueType_value["INDEXED_VALUE_TYPE_"+strings.ToUpper(typ)])
		}
		_, err = c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
			Namespace: Namespace, SearchAttributes: attrs})
		if _, exists := errors.AsType[*serviceerror.AlreadyExists](err); err != nil && !exists {
			return fmt.Errorf("add search attributes: %w", err)
		}
		_, err = c.WorkflowService().ListWorkflowExecutions(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: Namespace, PageSize: 1})
		return err
	}
	for {
		last := step()
		if last == nil {
			return nil
		}
		select {
		case <-s.proc.Done():
			return fmt.Errorf("exited: %v", last)
		case <-ctx.Done():
			return fmt.Errorf("not ready: %v", last)
		case <-time.After(500 * time.Millisecond):
		}
	}
}
