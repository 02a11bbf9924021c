package worker

import (
	"time"

	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/client/connflags"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/stores/kubernetes"
	"github.com/checkpoint-finalizer/finalizer/stores/zookeeper"
)

// StoreKind names an HA reference store backend.
type StoreKind string

// The HA reference store backends.
const (
	StoreEmbedded   StoreKind = "embedded"
	StoreZooKeeper  StoreKind = "zookeeper"
	StoreKubernetes StoreKind = "kubernetes"
)

// StoreKinds lists the backends in the order the usage text names them.
var StoreKinds = []StoreKind{StoreEmbedded, StoreZooKeeper, StoreKubernetes}

// Config is the worker's whole configuration. DefaultConfig is a working
// single-machine setup (embedded store, local file bucket, local Temporal).
type Config struct {
	Temporal TemporalConfig
	Store    StoreConfig
	// StateBucket is the gocloud URL of the bucket holding checkpoint state
	// and handles (file://, s3://, gs://, azblob://, mem://).
	StateBucket string
	// Clusters says which clusters the worker serves and where each keeps
	// its checkpoints and savepoints in the state bucket
	// (blobstate.ParseLayout): "*" for every cluster's at "<cluster>/", or
	// "prod-eu=flink/prod-eu/checkpoints:flink/prod-eu/savepoints,...".
	// Checkpoint N of job J lives in "<dir>/J/chk-N/", a savepoint there
	// or under the savepoints directory; a request naming any other
	// directory, or another cluster, is refused.
	Clusters string
	// Retain is how many references per job retention keeps, like Flink's
	// state.checkpoints.num-retained; 0 keeps every reference.
	Retain int
	// ReconcileMinGrace and ReconcileMinTombstoneTTL are the reconciler's
	// floors (reconcileacts.Floors): whatever grace and TTL a Reconcile
	// run asks for, or carries, its activities never judge a handle or
	// collect a tombstone younger than these, by this worker's clock.
	ReconcileMinGrace        time.Duration
	ReconcileMinTombstoneTTL time.Duration
	// RegisterSearchAttributes registers the search attributes the
	// workflows set when the namespace lacks them; without it, a namespace
	// that lacks one fails the start with the command that adds them.
	RegisterSearchAttributes bool
	// MetricsAddress is where /metrics, /livez and /readyz (/healthz) are
	// served; empty disables the endpoint.
	MetricsAddress string
	// OTLPEndpoint is the host:port of an OpenTelemetry collector that
	// receives the worker's traces (OTLP over gRPC); empty: no tracing.
	// OTLPInsecure sends them without TLS (else TLS, system roots).
	OTLPEndpoint string
	OTLPInsecure bool
	// LogLevel is debug, info, warn or error; LogFormat json or text.
	LogLevel  string
	LogFormat string
	// ShutdownGrace is how long running activities get to finish after a
	// stop is asked for, before they are cancelled and handed back.
	ShutdownGrace time.Duration
	// WorkflowCache is how many executions the worker keeps in memory
	// between their workflow tasks (the SDK's sticky cache, per process).
	// One that is evicted replays its history on its next task: cheap for
	// a finalization, whose history is short. The SDK's default, 10,000,
	// lets finalizations parked in Verifying (idle, their verify retried by
	// the server) hold ~50 KiB each for nothing.
	WorkflowCache int
}

// TemporalConfig says how to reach Temporal and where to poll. LoadConfig
// fills the Connection as the command-line tool does (package connflags):
// defaults, Temporal's own configuration (a temporal.toml profile,
// TEMPORAL_*), FINALIZER_* variables, flags.
type TemporalConfig struct {
	client.Connection
	TaskQueue string
}

// StoreConfig selects and configures the HA reference store; only the
// settings of the selected Kind are used. The backends' configurations are
// their own: they hold their rules (Validate) and print no secret.
type StoreConfig struct {
	Kind     StoreKind
	Embedded EmbeddedConfig
	// ZooKeeper's DigestPassword is the one from the environment; with
	// ZooKeeperDigestPasswordFile set instead, the start reads it from that
	// file.
	ZooKeeper                   zookeeper.Config
	ZooKeeperDigestPasswordFile string
	// Kubernetes is in-cluster, or a kubeconfig file and optionally one of
	// its contexts; its Logger is set when the store opens.
	Kubernetes kubernetes.Config
}

// EmbeddedConfig configures the single-machine bbolt store.
type EmbeddedConfig struct {
	// Path of the store file; its directory is created if missing.
	Path string
}

// Defaults that are not obvious from their names.
const (
	DefaultMetricsAddress = "127.0.0.1:9464"
	// DefaultDataDir holds the dev defaults' store file and bucket,
	// relative to the working directory.
	DefaultDataDir = "finalizer-data"
)

// DefaultConfig is what LoadConfig returns when nothing is set.
func DefaultConfig() Config {
	return Config{
		Temporal: TemporalConfig{
			Connection: connflags.Default,
			TaskQueue:  contract.DefaultTaskQueue,
		},
		Store: StoreConfig{
			Kind:     StoreEmbedded,
			Embedded: EmbeddedConfig{Path: DefaultDataDir + "/references.db"},
			ZooKeeper: zookeeper.Config{
				// Not Flink's /flink: the finalizer's nodes must never mix
				// with the ones a Flink HA setup writes itself.
				Root:           "/checkpoint-finalizer",
				SessionTimeout: 30 * time.Second,
			},
			Kubernetes: kubernetes.Config{QPS: kubernetes.DefaultQPS, Burst: kubernetes.DefaultBurst},
		},
		// create_dir: a fresh checkout runs without preparing a folder.
		StateBucket:              "file://./" + DefaultDataDir + "/state?create_dir=true",
		Clusters:                 blobstate.AnyCluster,
		Retain:                   1,
		ReconcileMinGrace:        reconcileacts.DefaultFloors().Grace,
		ReconcileMinTombstoneTTL: reconcileacts.DefaultFloors().TombstoneTTL,
		MetricsAddress:           DefaultMetricsAddress,
		LogLevel:                 "info",
		LogFormat:                "json",
		ShutdownGrace:            30 * time.Second,
		WorkflowCache:            256,
	}
}
