package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	sdkclient "go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
)

// envName is the variable behind a flag, named as the worker names it:
// "temporal-address" -> "FINALIZER_TEMPORAL_ADDRESS", so one environment
// configures both.
func envName(flagName string) string {
	return "FINALIZER_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// Variables of the global flags that tests and messages name.
var (
	envAddress   = envName(client.SettingAddress)
	envTaskQueue = envName("task-queue")
	envAPIKey    = envName(client.SettingAPIKey)
)

// connSetting is one setting of the Temporal connection: the worker's flag
// and variable (client.Setting*), over Temporal's own configuration.
type connSetting struct {
	name, usage string
	// temporal is where Temporal's configuration sets it, a layer lower.
	temporal string
	isBool   bool
	// envOnly: the API key; a flag would show in every process listing.
	envOnly bool
	set     func(c *client.Connection, v string) error
}

func connText(name, usage, temporal string, f func(*client.Connection) *string) connSetting {
	return connSetting{name: name, usage: usage, temporal: temporal,
		set: func(c *client.Connection, v string) error { *f(c) = v; return nil }}
}

// connSettings are the connection's settings in the order help lists them.
var connSettings = []connSetting{
	{name: client.SettingProfile, usage: "`profile` of Temporal's temporal.toml (the file $TEMPORAL_CONFIG_FILE names, else ~/.config/temporalio/temporal.toml)",
		temporal: "$TEMPORAL_PROFILE, else default"},
	connText(client.SettingAddress, "Temporal frontend `host:port` (default 127.0.0.1:7233)", "$TEMPORAL_ADDRESS, profile address",
		func(c *client.Connection) *string { return &c.Address }),
	connText(client.SettingNamespace, "Temporal `namespace` (default \"default\")", "$TEMPORAL_NAMESPACE, profile namespace",
		func(c *client.Connection) *string { return &c.Namespace }),
	{name: client.SettingTLS, isBool: true, usage: "TLS with the system roots; implied by any --temporal-tls-* flag",
		temporal: "$TEMPORAL_TLS, profile [tls]",
		set: func(c *client.Connection, v string) error {
			b, err := strconv.ParseBool(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("%q is not true or false", v)
			}
			c.TLS.Enabled = b
			return nil
		}},
	connText(client.SettingTLSCAFile, "PEM CA bundle `file` to verify Temporal's certificate (default: system roots)",
		"$TEMPORAL_TLS_SERVER_CA_CERT_PATH, profile tls.server_ca_cert_path",
		func(c *client.Connection) *string { return &c.TLS.CAFile }),
	connText(client.SettingTLSCertFile, "PEM client certificate `file` for mTLS, with --temporal-tls-key-file",
		"$TEMPORAL_TLS_CLIENT_CERT_PATH, profile tls.client_cert_path",
		func(c *client.Connection) *string { return &c.TLS.CertFile }),
	connText(client.SettingTLSKeyFile, "PEM client key `file` for mTLS, with --temporal-tls-cert-file",
		"$TEMPORAL_TLS_CLIENT_KEY_PATH, profile tls.client_key_path",
		func(c *client.Connection) *string { return &c.TLS.KeyFile }),
	connText(client.SettingTLSServerName, "`name` to verify Temporal's certificate against",
		"$TEMPORAL_TLS_SERVER_NAME, profile tls.server_name",
		func(c *client.Connection) *string { return &c.TLS.ServerName }),
	{name: client.SettingAPIKey, envOnly: true,
		set: func(c *client.Connection, v string) error { c.APIKey = v; return nil }},
	connText(client.SettingAPIKeyFile, "`file` holding the Temporal API key; or the key itself in $"+envAPIKey,
		"$TEMPORAL_API_KEY, profile api_key",
		func(c *client.Connection) *string { return &c.APIKeyFile }),
}

// renamed are the spellings the tool had before it took the worker's:
// refused with the new name rather than silently ignored.
var renamed = map[string]string{
	"address": client.SettingAddress, "namespace": client.SettingNamespace, "tls": client.SettingTLS,
	"tls-ca-file": client.SettingTLSCAFile, "tls-cert-file": client.SettingTLSCertFile,
	"tls-key-file": client.SettingTLSKeyFile, "tls-server-name": client.SettingTLSServerName,
	"api-key-file": client.SettingAPIKeyFile, "FINALIZER_NAMESPACE": envName(client.SettingNamespace),
}

// defaultConnection is the lowest layer, the worker's defaults.
var defaultConnection = client.Connection{Address: "127.0.0.1:7233", Namespace: "default"}

// globals are the flags every command takes: where Temporal is, and how to
// print.
type globals struct {
	// given are the connection flags as given on the command line; conn
	// is what check resolves them to over the lower layers.
	given     map[string]*givenValue
	conn      client.Connection
	taskQueue string
	json      bool
	timeout   time.Duration
	getenv    func(string) string
	stderr    io.Writer
}

// newGlobals reads the environment fallbacks of the flags that have no
// other layer; the connection's are resolved by check.
func newGlobals(getenv func(string) string, stderr io.Writer) *globals {
	g := &globals{given: map[string]*givenValue{}, taskQueue: contract.DefaultTaskQueue, getenv: getenv, stderr: stderr}
	if v := getenv(envTaskQueue); v != "" {
		g.taskQueue = v
	}
	for _, s := range connSettings {
		g.given[s.name] = &givenValue{isBool: s.isBool}
	}
	return g
}

// register adds the global flags to fs: registered on the top-level set
// and again on the command's (sharing the values), they may come before or
// after the command.
func (g *globals) register(fs *flag.FlagSet) {
	for _, s := range connSettings {
		if !s.envOnly {
			fs.Var(g.given[s.name], s.name, s.usage+" ($"+envName(s.name)+"; under it "+s.temporal+")")
		}
	}
	fs.StringVar(&g.taskQueue, "task-queue", g.taskQueue, "task queue of the finalizer's workers ($"+envTaskQueue+")")
	fs.BoolVar(&g.json, "json", g.json, "print JSON on stdout, for scripts")
	fs.DurationVar(&g.timeout, "timeout", g.timeout, "bound the whole command (0: no bound)")
}

// check resolves the connection, lowest layer first (defaults, Temporal's
// own configuration, FINALIZER_* variables, flags), and validates it, TLS
// files and API key file loaded, before anything connects.
func (g *globals) check() error {
	if v := g.getenv("FINALIZER_NAMESPACE"); v != "" && g.getenv(renamed["FINALIZER_NAMESPACE"]) == "" {
		return usagef("$FINALIZER_NAMESPACE was renamed $%s, the worker's name", renamed["FINALIZER_NAMESPACE"])
	}
	var ours client.Connection
	var profile string
	for _, s := range connSettings {
		from, v := "$"+envName(s.name), g.getenv(envName(s.name))
		if given := g.given[s.name]; given.set {
			from, v = "--"+s.name, given.value
		}
		if v == "" {
			continue
		}
		if s.name == client.SettingProfile {
			profile = v
			continue
		}
		if err := s.set(&ours, v); err != nil {
			return usagef("%s: %v", from, err)
		}
	}
	if g.getenv(envAPIKey) != "" && ours.APIKeyFile != "" {
		return usagef("set either $%s or --%s, not both", envAPIKey, client.SettingAPIKeyFile)
	}
	theirs, err := client.LoadTemporalConfig(profile, g.getenv)
	if err != nil {
		return usagef("%v", err)
	}
	g.conn = ours.Over(theirs.Over(defaultConnection))
	switch {
	case g.conn.Address == "":
		return usagef("--%s must not be empty", client.SettingAddress)
	case g.taskQueue == "":
		return usagef("--task-queue must not be empty")
	case g.timeout < 0:
		return usagef("--timeout must not be negative, got %s", g.timeout)
	}
	if problems := g.conn.Check(); len(problems) > 0 {
		msgs := make([]string, len(problems))
		for i, p := range problems {
			msgs[i] = fmt.Sprintf("--%s: %v", p.Setting, p.Err)
		}
		return usagef("%s", strings.Join(msgs, "; "))
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

// givenValue is a flag's text and whether it was given, so that a flag
// left out lets the lower layers through.
type givenValue struct {
	value  string
	set    bool
	isBool bool
}

func (v *givenValue) String() string { return v.value }

func (v *givenValue) Set(s string) error {
	v.value, v.set = s, true
	return nil
}

// IsBoolFlag lets --temporal-tls be given bare.
func (v *givenValue) IsBoolFlag() bool { return v.isBool }
