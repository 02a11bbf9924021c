package topology

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/workflowservice/v1"
	sdkclient "go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/devserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/freeport"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/serverbin"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/serverconfig"
)

// ServerVersion is the Temporal server the topology runs: the version of
// docker-compose.yml's image, built by scripts/temporal-server.sh.
const ServerVersion = "v1.29.1"

// Temporal is the server: all four services (frontend, history, matching,
// worker) in one process, on PostgreSQL with SQL advanced visibility.
type Temporal struct {
	// Frontend is the gRPC address clients, workers and the CLI dial.
	Frontend string `json:"frontend"`
	HTTP     string `json:"http"`
	// Pprof serves the server's Go profiles (/debug/pprof/).
	Pprof     string `json:"pprof"`
	Namespace string `json:"namespace"`
	// Bin is the folder of temporal-server and temporal-sql-tool.
	Bin string `json:"bin"`
	// CLI is the temporal CLI, used as an operator would.
	CLI        string  `json:"cli"`
	ConfigFile string  `json:"configFile"`
	Process    process `json:"process"`
	// Ports are every port the server listens on (gRPC, membership, HTTP,
	// pprof).
	Ports []int `json:"ports"`
}

// dynamicConfig is empty on purpose: the server's production defaults.
const dynamicConfig = "# Temporal dynamic config (tools/topology): production defaults.\n"

// setupTemporal builds or finds the server, creates and migrates both
// databases with temporal-sql-tool, and writes the server's config.
func (tp *Topology) setupTemporal(ctx context.Context, progress io.Writer) error {
	bin, err := serverbin.Ensure(ctx, progress)
	if err != nil {
		return err
	}
	cli, err := devserver.EnsureCLI(ctx, progress)
	if err != nil {
		return err
	}
	ports, err := freeport.Low(10)
	if err != nil {
		return err
	}
	dir := filepath.Join(tp.Dir, "temporal")
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
		return err
	}
	tp.Temporal = Temporal{
		Frontend:   fmt.Sprintf("127.0.0.1:%d", ports[0]),
		HTTP:       fmt.Sprintf("127.0.0.1:%d", ports[2]),
		Pprof:      fmt.Sprintf("127.0.0.1:%d", ports[9]),
		Namespace:  Namespace,
		Bin:        bin,
		CLI:        cli,
		ConfigFile: filepath.Join(dir, "config", "production.yaml"),
		Ports:      ports,
	}
	pg := tp.Postgres
	for _, args := range SchemaCommands(&pg) {
		fmt.Fprintf(progress, "topology: temporal-sql-tool %s\n", strings.Join(args, " "))
		if err := runLogged(ctx, filepath.Join(dir, "schema.log"), filepath.Join(bin, "temporal-sql-tool"), args...); err != nil {
			return err
		}
	}
	dc := filepath.Join(dir, "config", "dynamicconfig.yaml")
	if err := os.WriteFile(dc, []byte(dynamicConfig), 0o644); err != nil {
		return err
	}
	store := serverconfig.SQL{Plugin: SQLPlugin, Database: Schemas[0].Database, Addr: pg.Addr(), User: pg.User, Password: pg.Password, MaxConns: 20}
	visibility := store
	visibility.Database, visibility.MaxConns = Schemas[1].Database, 10
	cfg, err := serverconfig.Render(serverconfig.Config{
		Header: fmt.Sprintf("# Written by tools/topology: Temporal %s on PostgreSQL (%s plugin), SQL advanced visibility,\n"+
			"# every service in one process.", ServerVersion, SQLPlugin),
		LogLevel: "info", HistoryShards: HistoryShards, Default: store, Visibility: visibility,
		// Pprof on loopback only: the benchmark profiles the server's CPU through it.
		Ports: serverconfig.PortsFrom(ports), PprofPort: ports[9], DynamicConfigFile: dc,
	})
	if err != nil {
		return err
	}
	if err := os.WriteFile(tp.Temporal.ConfigFile, cfg, 0o644); err != nil {
		return err
	}
	tp.Temporal.Process = process{
		Name: "temporal-server",
		Args: []string{filepath.Join(bin, "temporal-server"), "--root", dir, "--config", "config", "--env", "production",
			"--allow-no-auth", "start"},
		Log:     filepath.Join(dir, "temporal-server.log"),
		PIDFile: filepath.Join(dir, "temporal-server.pid"),
		Marker:  dir,
	}
	return nil
}

// runLogged runs a command with its output appended to logPath, which the
// error names.
func runLogged(ctx context.Context, logPath, name string, args ...string) error {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintf(f, "$ %s %s\n", name, strings.Join(args, " "))
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout = io.MultiWriter(f, &out)
	cmd.Stderr = cmd.Stdout
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", filepath.Base(name), strings.Join(args, " "), err, proc.LastLines(out.String(), 20))
	}
	return nil
}

// StartTemporal starts the server (a no-op while it runs) and waits until
// its frontend answers and the namespace serves visibility queries.
func (tp *Topology) StartTemporal(ctx context.Context) error {
	if err := tp.Temporal.Process.start(); err != nil {
		return err
	}
	return tp.waitTemporal(ctx, tp.registered)
}

// StopTemporal stops the server (SIGTERM, then SIGKILL after 20 s).
func (tp *Topology) StopTemporal() error { return tp.Temporal.Process.stop(20 * time.Second) }

// TemporalPID is the server's process ID, 0 when it does not run.
func (tp *Topology) TemporalPID() int { return tp.Temporal.Process.pid() }

// KillTemporal kills the server with SIGKILL, a crash; a server that does
// not run is an error.
func (tp *Topology) KillTemporal() error { return tp.Temporal.Process.kill() }

// registerNamespace creates the namespace and the finalizer's search
// attributes with the temporal CLI, the commands an operator runs.
func (tp *Topology) registerNamespace(ctx context.Context, progress io.Writer) error {
	t := tp.Temporal
	log := filepath.Join(tp.Dir, "temporal", "operator.log")
	cli := func(args ...string) error {
		args = append(args, "--address", t.Frontend, "--namespace", t.Namespace)
		fmt.Fprintf(progress, "topology: temporal %s\n", strings.Join(args, " "))
		return runLogged(ctx, log, t.CLI, args...)
	}
	if err := retryFor(ctx, time.Minute, func() error {
		return cli("operator", "namespace", "create", "--retention", NamespaceRetention)
	}); err != nil {
		return err
	}
	sas := contract.SearchAttributes()
	names := make([]string, 0, len(sas))
	for name := range sas {
		names = append(names, name)
	}
	sort.Strings(names)
	// One command for all, as docker-compose.yml's setup does per name; the
	// namespace becomes visible to every service within its refresh
	// interval, so this retries until it does.
	args := []string{"operator", "search-attribute", "create"}
	for _, name := range names {
		args = append(args, "--name", name, "--type", sas[name])
	}
	if err := retryFor(ctx, time.Minute, func() error { return cli(args...) }); err != nil {
		return err
	}
	tp.registered = true
	return tp.waitTemporal(ctx, true)
}

// waitTemporal waits for a passing health check and, once the namespace is
// registered, until a visibility query naming every search attribute is
// accepted: then workflows can be started with them and listed by them.
func (tp *Topology) waitTemporal(ctx context.Context, namespace bool) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	t := tp.Temporal
	var (
		c    sdkclient.Client
		last error
	)
	defer func() {
		if c != nil {
			c.Close()
		}
	}()
	for {
		if c == nil {
			// Dialing asks the server for its capabilities: it fails until
			// the frontend serves.
			c, last = tp.Dial(ctx)
		}
		if c != nil {
			last = tp.temporalReady(ctx, c, namespace)
		}
		if last == nil {
			return nil
		}
		if t.Process.pid() == 0 {
			return fmt.Errorf("temporal server exited (log %s): %v", t.Process.Log, last)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("temporal server at %s not ready (log %s): %v", t.Frontend, t.Process.Log, last)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func (tp *Topology) temporalReady(ctx context.Context, c sdkclient.Client, namespace bool) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := c.CheckHealth(ctx, &sdkclient.CheckHealthRequest{}); err != nil {
		return err
	}
	if !namespace {
		return nil
	}
	resp, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: tp.Temporal.Namespace})
	if err != nil {
		return err
	}
	var clauses []string
	for name, typ := range contract.SearchAttributes() {
		if _, ok := resp.GetCustomAttributes()[name]; !ok {
			return fmt.Errorf("search attribute %s not registered yet", name)
		}
		switch typ {
		case "Keyword":
			clauses = append(clauses, name+` = "x"`)
		case "Int":
			clauses = append(clauses, name+` = 0`)
		case "Datetime":
			clauses = append(clauses, name+` < "2000-01-01T00:00:00Z"`)
		}
	}
	sort.Strings(clauses)
	_, err = c.WorkflowService().ListWorkflowExecutions(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Namespace: tp.Temporal.Namespace, PageSize: 1, Query: strings.Join(clauses, " AND "),
	})
	return err
}

// Dial connects an SDK client to the frontend (it does not wait).
func (tp *Topology) Dial(ctx context.Context) (sdkclient.Client, error) {
	return sdkclient.DialContext(ctx, sdkclient.Options{
		HostPort:  tp.Temporal.Frontend,
		Namespace: tp.Temporal.Namespace,
		Logger:    sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		ConnectionOptions: sdkclient.ConnectionOptions{
			// Lazy: the server may not listen yet.
			GetSystemInfoTimeout: 5 * time.Second,
		},
	})
}

// retryFor retries f until it succeeds or d passes.
func retryFor(ctx context.Context, d time.Duration, f func() error) error {
	deadline := time.Now().Add(d)
	for {
		err := f()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(time.Second):
		}
	}
}
