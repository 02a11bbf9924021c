package worker

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/client/connflags"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/flagenv"
)

// Secrets have no flag, only their variable: a command line shows in
// every process listing.
var (
	envTemporalAPIKey = connflags.EnvAPIKey
	envZKPassword     = flagenv.EnvName("zookeeper-digest-password")
)

// Flags are the worker's settings as flags of one set, each backed by its
// FINALIZER_ variable; the Temporal connection's are package connflags',
// the finalizer command's too. NewFlags registers them, the set parses,
// Load reads them.
type Flags struct {
	fs   *pflag.FlagSet
	cfg  Config
	conn connflags.Flags
	// servers is --zookeeper-servers as given, split by Load.
	servers string
}

// NewFlags registers the worker's flags on fs, defaults from
// DefaultConfig.
func NewFlags(fs *pflag.FlagSet) *Flags {
	f := &Flags{fs: fs, cfg: DefaultConfig()}
	c := &f.cfg
	f.conn.Register(fs)
	fs.StringVar(&c.Temporal.TaskQueue, "task-queue", c.Temporal.TaskQueue, "task queue the worker polls")
	fs.BoolVar(&c.RegisterSearchAttributes, "register-search-attributes", false,
		"register the finalizer's search attributes in the namespace if missing (else a namespace without them fails the start)")

	fs.StringVar((*string)(&c.Store.Kind), "store", string(c.Store.Kind), "HA reference store: "+joinKinds())
	fs.StringVar(&c.Store.Embedded.Path, "embedded-path", c.Store.Embedded.Path, "embedded store `file`")
	fs.StringVar(&f.servers, "zookeeper-servers", "", "ZooKeeper ensemble, comma-separated `host:port` list")
	fs.StringVar(&c.Store.ZooKeeper.Root, "zookeeper-root", c.Store.ZooKeeper.Root, "ZooKeeper `path` under which the store lives")
	fs.DurationVar(&c.Store.ZooKeeper.SessionTimeout, "zookeeper-session-timeout", c.Store.ZooKeeper.SessionTimeout, "ZooKeeper session timeout")
	fs.StringVar(&c.Store.ZooKeeper.DigestUser, "zookeeper-digest-user", "", "ZooKeeper digest `user` (with a digest password)")
	fs.StringVar(&c.Store.ZooKeeperDigestPasswordFile, "zookeeper-digest-password-file", "",
		"`file` holding the ZooKeeper digest password; or the password itself in $"+envZKPassword)
	fs.BoolVar(&c.Store.Kubernetes.InCluster, "kubernetes-in-cluster", false, "use the pod's service account")
	fs.StringVar(&c.Store.Kubernetes.Kubeconfig, "kubernetes-kubeconfig", "", "kubeconfig `file` (instead of --kubernetes-in-cluster)")
	fs.StringVar(&c.Store.Kubernetes.Context, "kubernetes-context", "", "kubeconfig `context` (default: the current one)")
	fs.StringVar(&c.Store.Kubernetes.Namespace, "kubernetes-namespace", "", "`namespace` of the ConfigMaps (default: the pod's or the context's)")
	fs.Float32Var(&c.Store.Kubernetes.QPS, "kubernetes-qps", c.Store.Kubernetes.QPS,
		"API requests per second the store's client sends at most, publishes and retention together")
	fs.IntVar(&c.Store.Kubernetes.Burst, "kubernetes-burst", c.Store.Kubernetes.Burst, "API requests the store's client may send at once above --kubernetes-qps")

	fs.StringVar(&c.StateBucket, "state-bucket", c.StateBucket, "gocloud `URL` of the state bucket ("+bucketSchemes()+")")
	fs.StringVar(&c.Clusters, "clusters", c.Clusters,
		"clusters served and where each keeps its checkpoints and savepoints in the bucket: \"*\" (every cluster's at <cluster>/) or cluster=dir[:savepoints-dir],... (Flink's state.checkpoints.dir and state.savepoints.dir without the bucket); checkpoint N of job J lives in <dir>/J/chk-N/, a savepoint there or under savepoints-dir")
	fs.IntVar(&c.Retain, "retain", c.Retain, "references kept per job by retention (0 keeps all)")
	fs.DurationVar(&c.ReconcileMinGrace, "reconcile-min-grace", c.ReconcileMinGrace,
		"the reconciler's floor for any run's grace: a handle written, or retired, more recently is never judged an orphan, whatever the run asks")
	fs.DurationVar(&c.ReconcileMinTombstoneTTL, "reconcile-min-tombstone-ttl", c.ReconcileMinTombstoneTTL,
		"the reconciler's floor for any run's tombstone TTL: a younger tombstone is never collected, whatever the run asks (at least "+contract.MinTombstoneTTL.String()+"; longer than any activity attempt and any worker outage)")
	fs.StringVar(&c.MetricsAddress, "metrics-address", c.MetricsAddress,
		"`host:port` serving /metrics, /livez and /readyz (also /healthz); empty or \"off\" disables")
	fs.StringVar(&c.LogLevel, "log-level", c.LogLevel, "debug, info, warn or error")
	fs.StringVar(&c.LogFormat, "log-format", c.LogFormat, "json or text")
	fs.DurationVar(&c.ShutdownGrace, "shutdown-grace", c.ShutdownGrace, "time running activities get to finish on shutdown")
	fs.IntVar(&c.WorkflowCache, "workflow-cache", c.WorkflowCache, "workflow executions kept in memory between their tasks (the SDK's sticky cache)")
	fs.StringVar(&c.OTLPEndpoint, "otlp-endpoint", "",
		"`host:port` of an OpenTelemetry collector receiving traces (OTLP over gRPC); empty: no tracing")
	fs.BoolVar(&c.OTLPInsecure, "otlp-insecure", false, "send traces to --otlp-endpoint without TLS")

	// Every flag but the connection's (bound, and their usage worded, by
	// connflags) reads its variable, which its usage names.
	fs.VisitAll(func(fl *pflag.Flag) {
		if flagenv.Env(fl) == "" && fl.Name != "help" {
			flagenv.BindEnv(fs, fl.Name)
			fl.Usage += " ($" + flagenv.EnvName(fl.Name) + ")"
		}
	})
	flagenv.Defer(fs)
	return f
}

// Load reads the parsed flags over their variables (an empty one counts
// as unset) and Temporal's own configuration: the configuration with every
// value that parsed, and a *stores.InvalidError for each that did not or a
// profile that does not load.
func (f *Flags) Load(getenv func(string) string) (Config, []error) {
	var problems []error
	for _, p := range flagenv.Resolve(f.fs, getenv) {
		problems = append(problems, invalid(p.(*flagenv.Problem)))
	}
	cfg := f.cfg
	conn, err := f.conn.Connection(getenv)
	if err != nil {
		problems = append(problems, invalid(err.(*flagenv.Problem)))
	}
	cfg.Temporal.Connection = conn
	cfg.Store.ZooKeeper.Servers = splitList(f.servers)
	cfg.Store.ZooKeeper.DigestPassword = client.Secret(getenv(envZKPassword))
	// A variable cannot be set to "empty" through getenv, so "off" is
	// the spelling that disables from there.
	if strings.EqualFold(strings.TrimSpace(cfg.MetricsAddress), "off") {
		cfg.MetricsAddress = ""
	}
	return cfg, problems
}

// splitList reads a comma-separated list; blanks around items are dropped.
func splitList(v string) []string {
	var items []string
	for item := range strings.SplitSeq(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	return items
}
