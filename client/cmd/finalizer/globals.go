package main

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	sdkclient "go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/workflows"
)

// Environment variables behind the global flags: the worker's names, so
// one environment configures both.
const (
	envAddress       = "FINALIZER_TEMPORAL_ADDRESS"
	envNamespace     = "FINALIZER_NAMESPACE"
	envNamespaceAlt  = "FINALIZER_TEMPORAL_NAMESPACE" // the worker's spelling
	envTaskQueue     = "FINALIZER_TASK_QUEUE"
	envTLS           = "FINALIZER_TEMPORAL_TLS"
	envTLSCA         = "FINALIZER_TEMPORAL_TLS_CA_FILE"
	envTLSCert       = "FINALIZER_TEMPORAL_TLS_CERT_FILE"
	envTLSKey        = "FINALIZER_TEMPORAL_TLS_KEY_FILE"
	envTLSServerName = "FINALIZER_TEMPORAL_TLS_SERVER_NAME"
	// The API key itself comes from the environment or a file, never a
	// flag: a flag shows in every process listing.
	envAPIKey     = "FINALIZER_TEMPORAL_API_KEY"
	envAPIKeyFile = "FINALIZER_TEMPORAL_API_KEY_FILE"
)

// globals are the flags every command takes: where Temporal is, and how to
// print.
type globals struct {
	conn       client.Connection
	apiKeyFile string
	taskQueue  string
	json       bool
	timeout    time.Duration
	stderr     io.Writer
	// envErr is an environment value that does not parse, reported by check.
	envErr error
}

// newGlobals reads the environment fallbacks.
func newGlobals(getenv func(string) string, stderr io.Writer) *globals {
	first := func(def string, names ...string) string {
		for _, n := range names {
			if v := getenv(n); v != "" {
				return v
			}
		}
		return def
	}
	g := &globals{
		conn: client.Connection{
			Address:       first("127.0.0.1:7233", envAddress),
			Namespace:     first("default", envNamespace, envNamespaceAlt),
			TLSCA:         getenv(envTLSCA),
			TLSCert:       getenv(envTLSCert),
			TLSKey:        getenv(envTLSKey),
			TLSServerName: getenv(envTLSServerName),
			APIKey:        getenv(envAPIKey),
		},
		apiKeyFile: getenv(envAPIKeyFile),
		taskQueue:  first(workflows.DefaultTaskQueue, envTaskQueue),
		stderr:     stderr,
	}
	if v := getenv(envTLS); v != "" {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			g.envErr = usagef("$%s: %q is not true or false", envTLS, v)
		}
		g.conn.TLS = b
	}
	return g
}

// register adds the global flags to fs, defaulting to the current values:
// registered on the top-level set and again on the command's, they may
// come before or after the command.
func (g *globals) register(fs *flag.FlagSet) {
	fs.StringVar(&g.conn.Address, "address", g.conn.Address, "Temporal frontend host:port ($"+envAddress+")")
	fs.StringVar(&g.conn.Namespace, "namespace", g.conn.Namespace, "Temporal namespace ($"+envNamespace+" or $"+envNamespaceAlt+")")
	fs.StringVar(&g.taskQueue, "task-queue", g.taskQueue, "task queue of the finalizer's workers ($"+envTaskQueue+")")
	fs.BoolVar(&g.conn.TLS, "tls", g.conn.TLS, "TLS with the system roots; implied by any --tls-* flag ($"+envTLS+")")
	fs.StringVar(&g.conn.TLSCA, "tls-ca-file", g.conn.TLSCA, "PEM CA bundle to verify Temporal's certificate ($"+envTLSCA+")")
	fs.StringVar(&g.conn.TLSCert, "tls-cert-file", g.conn.TLSCert, "PEM client certificate for mTLS, with --tls-key-file ($"+envTLSCert+")")
	fs.StringVar(&g.conn.TLSKey, "tls-key-file", g.conn.TLSKey, "PEM client key for mTLS, with --tls-cert-file ($"+envTLSKey+")")
	fs.StringVar(&g.conn.TLSServerName, "tls-server-name", g.conn.TLSServerName, "name to verify Temporal's certificate against ($"+envTLSServerName+")")
	fs.StringVar(&g.apiKeyFile, "api-key-file", g.apiKeyFile, "file holding the Temporal API key; or the key itself in $"+envAPIKey+" ($"+envAPIKeyFile+")")
	fs.BoolVar(&g.json, "json", g.json, "print JSON on stdout, for scripts")
	fs.DurationVar(&g.timeout, "timeout", g.timeout, "bound the whole command (0: no bound)")
}

// check validates the globals, and loads the API key file, before
// anything connects.
func (g *globals) check() error {
	switch {
	case g.envErr != nil:
		return g.envErr
	case g.conn.Address == "":
		return usagef("--address must not be empty")
	case g.taskQueue == "":
		return usagef("--task-queue must not be empty")
	case g.timeout < 0:
		return usagef("--timeout must not be negative, got %s", g.timeout)
	case g.conn.APIKey != "" && g.apiKeyFile != "":
		return usagef("set either $%s or --api-key-file, not both", envAPIKey)
	}
	if g.apiKeyFile != "" {
		b, err := os.ReadFile(g.apiKeyFile)
		if err != nil {
			return usagef("--api-key-file: %v", err)
		}
		// Secret files usually end in the newline echo or a mounted
		// Kubernetes Secret left.
		if g.conn.APIKey = strings.TrimRight(string(b), "\r\n"); g.conn.APIKey == "" {
			return usagef("--api-key-file: %s is empty", g.apiKeyFile)
		}
	}
	if _, err := g.conn.TLSConfig(); err != nil {
		return usagef("%v", err)
	}
	return nil
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
