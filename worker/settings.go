package worker

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// EnvPrefix starts every environment variable the worker reads.
const EnvPrefix = "FINALIZER_"

// EnvName is the environment variable that backs a flag:
// "zookeeper-servers" -> "FINALIZER_ZOOKEEPER_SERVERS".
func EnvName(flagName string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// setting is one configuration value, readable from a flag and its
// environment variable, or (envOnly) from the environment alone.
type setting struct {
	name    string // flag name; the environment variable derives from it
	usage   string
	isBool  bool
	envOnly bool // secrets: a flag would show in the process listing
	get     func(*Config) string
	set     func(*Config, string) error
}

// source names where a setting can come from, for error messages.
func (s setting) source() string {
	src := "-" + s.name + " / " + EnvName(s.name)
	if s.envOnly {
		src = EnvName(s.name)
	}
	if t, ok := temporalSources[s.name]; ok {
		src += " / " + t
	}
	return src
}

// temporalSources are where Temporal's own configuration (a temporal.toml
// profile, then TEMPORAL_* variables; client.LoadTemporalConfig) sets a
// connection setting, under the FINALIZER_ variable and the flag.
var temporalSources = map[string]string{
	"temporal-profile":         "TEMPORAL_PROFILE",
	"temporal-address":         "TEMPORAL_ADDRESS / profile address",
	"temporal-namespace":       "TEMPORAL_NAMESPACE / profile namespace",
	"temporal-tls":             "TEMPORAL_TLS / profile [tls]",
	"temporal-tls-ca-file":     "TEMPORAL_TLS_SERVER_CA_CERT_PATH / profile tls.server_ca_cert_path",
	"temporal-tls-cert-file":   "TEMPORAL_TLS_CLIENT_CERT_PATH / profile tls.client_cert_path",
	"temporal-tls-key-file":    "TEMPORAL_TLS_CLIENT_KEY_PATH / profile tls.client_key_path",
	"temporal-tls-server-name": "TEMPORAL_TLS_SERVER_NAME / profile tls.server_name",
	"temporal-api-key":         "TEMPORAL_API_KEY / profile api_key",
}

// field is the InvalidError field of a setting: its flag and variable.
func field(name string) string {
	for _, s := range settings {
		if s.name == name {
			return s.source()
		}
	}
	return name
}

func text(name, usage string, f func(*Config) *string) setting {
	return setting{name: name, usage: usage,
		get: func(c *Config) string { return *f(c) },
		set: func(c *Config, v string) error { *f(c) = v; return nil }}
}

func secret(name, usage string, f func(*Config) *Secret) setting {
	return setting{name: name, usage: usage, envOnly: true,
		get: func(c *Config) string { return f(c).String() },
		set: func(c *Config, v string) error { *f(c) = Secret(v); return nil }}
}

func integer(name, usage string, f func(*Config) *int) setting {
	return setting{name: name, usage: usage,
		get: func(c *Config) string { return strconv.Itoa(*f(c)) },
		set: func(c *Config, v string) error {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("must be an integer (got %q)", v)
			}
			*f(c) = n
			return nil
		}}
}

func duration(name, usage string, f func(*Config) *time.Duration) setting {
	return setting{name: name, usage: usage,
		get: func(c *Config) string { return f(c).String() },
		set: func(c *Config, v string) error {
			d, err := time.ParseDuration(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("must be a duration such as 90s, 15m or 1h (got %q)", v)
			}
			*f(c) = d
			return nil
		}}
}

func boolean(name, usage string, f func(*Config) *bool) setting {
	return setting{name: name, usage: usage, isBool: true,
		get: func(c *Config) string { return strconv.FormatBool(*f(c)) },
		set: func(c *Config, v string) error {
			b, err := strconv.ParseBool(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("must be true or false (got %q)", v)
			}
			*f(c) = b
			return nil
		}}
}

// list reads a comma-separated list; blanks around items are dropped.
func list(name, usage string, f func(*Config) *[]string) setting {
	return setting{name: name, usage: usage,
		get: func(c *Config) string { return strings.Join(*f(c), ",") },
		set: func(c *Config, v string) error {
			var items []string
			for _, item := range strings.Split(v, ",") {
				if item = strings.TrimSpace(item); item != "" {
					items = append(items, item)
				}
			}
			*f(c) = items
			return nil
		}}
}

// settings is every configuration value, in the order of the usage text.
var settings = []setting{
	text("temporal-profile", "profile of Temporal's temporal.toml (the file TEMPORAL_CONFIG_FILE names, else $HOME/.config/temporalio/temporal.toml) under the settings below",
		func(c *Config) *string { return &c.Temporal.Profile }),
	text("temporal-address", "Temporal frontend host:port",
		func(c *Config) *string { return &c.Temporal.Address }),
	text("temporal-namespace", "Temporal namespace",
		func(c *Config) *string { return &c.Temporal.Namespace }),
	text("task-queue", "task queue the worker polls",
		func(c *Config) *string { return &c.Temporal.TaskQueue }),
	boolean("temporal-tls", "use TLS towards Temporal (implied by any other -temporal-tls-* setting)",
		func(c *Config) *bool { return &c.Temporal.TLS.Enabled }),
	text("temporal-tls-ca-file", "PEM CA bundle to verify Temporal's certificate (default: system roots)",
		func(c *Config) *string { return &c.Temporal.TLS.CAFile }),
	text("temporal-tls-cert-file", "PEM client certificate for mTLS (with -temporal-tls-key-file)",
		func(c *Config) *string { return &c.Temporal.TLS.CertFile }),
	text("temporal-tls-key-file", "PEM client key for mTLS (with -temporal-tls-cert-file)",
		func(c *Config) *string { return &c.Temporal.TLS.KeyFile }),
	text("temporal-tls-server-name", "server name to verify Temporal's certificate against",
		func(c *Config) *string { return &c.Temporal.TLS.ServerName }),
	boolean("register-search-attributes", "register the finalizer's search attributes in the namespace if missing (else a namespace without them fails the start)",
		func(c *Config) *bool { return &c.RegisterSearchAttributes }),
	secret("temporal-api-key", "Temporal API key (environment only; or -temporal-api-key-file)",
		func(c *Config) *Secret { return &c.Temporal.APIKey }),
	text("temporal-api-key-file", "file holding the Temporal API key",
		func(c *Config) *string { return &c.Temporal.APIKeyFile }),

	{name: "store", usage: "HA reference store: embedded, zookeeper or kubernetes",
		get: func(c *Config) string { return string(c.Store.Kind) },
		set: func(c *Config, v string) error { c.Store.Kind = StoreKind(strings.TrimSpace(v)); return nil }},
	text("embedded-path", "embedded store file",
		func(c *Config) *string { return &c.Store.Embedded.Path }),
	list("zookeeper-servers", "ZooKeeper ensemble, comma-separated host:port list",
		func(c *Config) *[]string { return &c.Store.ZooKeeper.Servers }),
	text("zookeeper-root", "ZooKeeper path under which the store lives",
		func(c *Config) *string { return &c.Store.ZooKeeper.Root }),
	duration("zookeeper-session-timeout", "ZooKeeper session timeout",
		func(c *Config) *time.Duration { return &c.Store.ZooKeeper.SessionTimeout }),
	text("zookeeper-digest-user", "ZooKeeper digest user (with a digest password)",
		func(c *Config) *string { return &c.Store.ZooKeeper.DigestUser }),
	secret("zookeeper-digest-password", "ZooKeeper digest password (environment only; or -zookeeper-digest-password-file)",
		func(c *Config) *Secret { return &c.Store.ZooKeeper.DigestPassword }),
	text("zookeeper-digest-password-file", "file holding the ZooKeeper digest password",
		func(c *Config) *string { return &c.Store.ZooKeeper.DigestPasswordFile }),
	boolean("kubernetes-in-cluster", "use the pod's service account",
		func(c *Config) *bool { return &c.Store.Kubernetes.InCluster }),
	text("kubernetes-kubeconfig", "kubeconfig file (instead of -kubernetes-in-cluster)",
		func(c *Config) *string { return &c.Store.Kubernetes.Kubeconfig }),
	text("kubernetes-context", "kubeconfig context (default: the current one)",
		func(c *Config) *string { return &c.Store.Kubernetes.Context }),
	text("kubernetes-namespace", "namespace of the ConfigMaps (default: the pod's or the context's)",
		func(c *Config) *string { return &c.Store.Kubernetes.Namespace }),

	text("state-bucket", "gocloud URL of the state bucket ("+bucketSchemes()+")",
		func(c *Config) *string { return &c.StateBucket }),
	text("clusters", "clusters served and where each keeps its checkpoints and savepoints in the bucket: \"*\" (every cluster's at <cluster>/) or cluster=dir[:savepoints-dir],... (Flink's state.checkpoints.dir and state.savepoints.dir without the bucket); checkpoint N of job J lives in <dir>/J/chk-N/, a savepoint there or under savepoints-dir",
		func(c *Config) *string { return &c.Clusters }),
	integer("retain", "references kept per job by retention (0 keeps all)",
		func(c *Config) *int { return &c.Retain }),
	duration("reconcile-min-grace", "the reconciler's floor for any run's grace: a handle written, or retired, more recently is never judged an orphan, whatever the run asks",
		func(c *Config) *time.Duration { return &c.ReconcileMinGrace }),
	duration("reconcile-min-tombstone-ttl", "the reconciler's floor for any run's tombstone TTL: a younger tombstone is never collected, whatever the run asks (at least "+contract.MinTombstoneTTL.String()+"; longer than any activity attempt and any worker outage)",
		func(c *Config) *time.Duration { return &c.ReconcileMinTombstoneTTL }),
	{name: "metrics-address", usage: "host:port serving /metrics, /livez and /readyz (also /healthz); empty or \"off\" disables",
		get: func(c *Config) string { return c.MetricsAddress },
		set: func(c *Config, v string) error {
			// An environment variable cannot be set to "empty" through
			// getenv, so "off" is the spelling that disables from there.
			if strings.EqualFold(strings.TrimSpace(v), "off") {
				v = ""
			}
			c.MetricsAddress = v
			return nil
		}},
	text("log-level", "debug, info, warn or error",
		func(c *Config) *string { return &c.LogLevel }),
	text("log-format", "json or text",
		func(c *Config) *string { return &c.LogFormat }),
	duration("shutdown-grace", "time running activities get to finish on shutdown",
		func(c *Config) *time.Duration { return &c.ShutdownGrace }),
	integer("workflow-cache", "workflow executions kept in memory between their tasks (the SDK's sticky cache)",
		func(c *Config) *int { return &c.WorkflowCache }),
	text("otlp-endpoint", "host:port of an OpenTelemetry collector receiving traces (OTLP over gRPC); empty: no tracing",
		func(c *Config) *string { return &c.OTLPEndpoint }),
	boolean("otlp-insecure", "send traces to -otlp-endpoint without TLS",
		func(c *Config) *bool { return &c.OTLPInsecure }),
}
