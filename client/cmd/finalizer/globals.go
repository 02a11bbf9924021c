package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/spf13/pflag"
	sdkclient "go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/client/connflags"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/flagenv"
)

// Variables of the global flags that tests and messages name.
var (
	envAddress   = flagenv.EnvName(client.SettingAddress)
	envTaskQueue = flagenv.EnvName("task-queue")
	envAPIKey    = connflags.EnvAPIKey
)

// renamed are the spellings the tool had before it took the worker's:
// refused with the new name rather than silently ignored.
var renamed = map[string]string{
	"address": client.SettingAddress, "namespace": client.SettingNamespace, "tls": client.SettingTLS,
	"tls-ca-file": client.SettingTLSCAFile, "tls-cert-file": client.SettingTLSCertFile,
	"tls-key-file": client.SettingTLSKeyFile, "tls-server-name": client.SettingTLSServerName,
	"api-key-file": client.SettingAPIKeyFile,
}

// oldNamespaceEnv is the variable FINALIZER_TEMPORAL_NAMESPACE replaced.
const oldNamespaceEnv = "FINALIZER_NAMESPACE"

// globals are the flags every command takes: where Temporal is, and how to
// print.
type globals struct {
	connFlags connflags.Flags
	// conn is what check resolves the connection flags to over the lower
	// layers.
	conn      client.Connection
	taskQueue string
	// output is --output as given; json is its alias --json (-o json).
	// check resolves both into format.
	output  string
	json    bool
	format  format
	timeout time.Duration
	getenv  func(string) string
	stderr  io.Writer
}

func newGlobals(getenv func(string) string, stderr io.Writer) *globals {
	return &globals{taskQueue: contract.DefaultTaskQueue, getenv: getenv, stderr: stderr}
}

// register adds the global flags to fs, the root's persistent set: they
// may come before or after the command.
func (g *globals) register(fs *pflag.FlagSet) {
	g.connFlags.Register(fs)
	fs.StringVar(&g.taskQueue, "task-queue", g.taskQueue, "task queue of the finalizer's workers ($"+envTaskQueue+")")
	fs.StringVarP(&g.output, "output", "o", "", "output format: text (default), wide (tables with every column), json or yaml (results on stdout, errors as objects on stderr)")
	fs.BoolVar(&g.json, "json", false, "the same as -o json (kept for scripts)")
	fs.DurationVar(&g.timeout, "timeout", 0, "bound the whole command (0: no bound)")
	flagenv.BindEnv(fs, "task-queue")
	flagenv.Defer(fs, "task-queue", "output", "json", "timeout")
}

// check resolves the connection over the lower layers and validates the
// global flags, TLS files and API key file loaded, before anything
// connects; flagenv.Resolve has read them.
func (g *globals) check() []error {
	var problems []error
	conn, err := g.connFlags.Connection(g.getenv)
	if err != nil {
		problems = append(problems, err)
	}
	for _, e := range conn.Check() {
		problems = append(problems, connflags.Problem(e.Setting, e.Err))
	}
	g.conn = conn
	if g.getenv(oldNamespaceEnv) != "" && g.getenv(flagenv.EnvName(client.SettingNamespace)) == "" {
		problems = append(problems, errors.New("$"+oldNamespaceEnv+" was renamed $"+flagenv.EnvName(client.SettingNamespace)+", the worker's name"))
	}
	if err := g.resolveFormat(); err != nil {
		problems = append(problems, err)
	}
	if g.taskQueue == "" {
		problems = append(problems, usagef("--task-queue must not be empty"))
	}
	if g.timeout < 0 {
		problems = append(problems, usagef("--timeout must not be negative, got %s", g.timeout))
	}
	return problems
}

// connect dials Temporal and returns the finalizer client over it; closeFn
// releases the connection.
func (g *globals) connect(ctx context.Context) (c *client.Client, closeFn func(), err error) {
	// The SDK's info logs are noise on a terminal; warnings stay.
	logger := slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	tc, err := g.conn.Dial(ctx, sdkclient.Options{Logger: sdklog.NewStructuredLogger(logger)})
	if err != nil {
		return nil, nil, err
	}
	return client.New(tc, client.Options{TaskQueue: g.taskQueue, Logger: logger}), tc.Close, nil
}

// withTimeout applies --timeout.
func (g *globals) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if g.timeout == 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, g.timeout)
}

// resolveFormat sets format from --output and its alias --json, which
// may only agree.
func (g *globals) resolveFormat() error {
	f, err := parseFormat(g.output)
	if err != nil {
		return err
	}
	if g.json {
		if g.output != "" && f != formatJSON {
			return usagef("--json is -o json: it contradicts --output %s", f)
		}
		f = formatJSON
	}
	g.format = f
	return nil
}
