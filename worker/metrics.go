package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/otlptranslator"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"

	"github.com/checkpoint-finalizer/finalizer/internal/version"
)

// latencyBuckets are in seconds (the SDK's timers are recorded in
// seconds); OpenTelemetry's default boundaries (0-10000) suit milliseconds
// and would put every latency in the first bucket.
var latencyBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300}

// metrics is the SDK metrics handler every metric goes through (the SDK's
// own and ours: activities and workflows emit through it, which keeps
// workflow metrics replay-safe) and the HTTP endpoint exporting them.
type metrics struct {
	handler  client.MetricsHandler
	provider *sdkmetric.MeterProvider
	reg      *prometheus.Registry // nil when disabled
	// own registers the worker's own collectors: each of their series
	// carries the Temporal namespace (LabelTemporalNamespace), as the
	// series the SDK's handler emits do.
	own    prometheus.Registerer
	server *http.Server
	addr   string // bound address, "" when disabled
	// ready: the pollers run. probes: what else readiness needs, set once
	// the dependencies are open.
	ready  atomic.Bool
	probes atomic.Pointer[[]probe]
	// backup copies the embedded store for /backup: nil while no embedded
	// store is open.
	backup atomic.Pointer[backupSource]
	log    *slog.Logger
	served chan error
}

// startMetrics serves /metrics, the health endpoints and /backup on addr; with addr empty the
// handler discards everything and nothing listens. namespace is the Temporal
// namespace the worker serves, exported as LabelTemporalNamespace: the
// alerts aggregate by it.
func startMetrics(addr, namespace string, log *slog.Logger) (*metrics, error) {
	if addr == "" {
		return &metrics{handler: client.MetricsNopHandler}, nil
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	own := prometheus.WrapRegistererWith(prometheus.Labels{LabelTemporalNamespace: namespace}, reg)
	own.MustRegister(buildInfo())
	exporter, err := otelprom.New(
		otelprom.WithRegisterer(reg),
		// Prometheus-style names: counters end in _total, timers in _seconds.
		otelprom.WithTranslationStrategy(otlptranslator.UnderscoreEscapingWithSuffixes),
		// Scope labels and target_info would repeat the same constant on
		// every series of a single-purpose process.
		otelprom.WithoutScopeInfo(),
		otelprom.WithoutTargetInfo(),
		otelprom.WithAggregationSelector(func(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
			if k == sdkmetric.InstrumentKindHistogram {
				return sdkmetric.AggregationExplicitBucketHistogram{Boundaries: latencyBuckets}
			}
			return sdkmetric.DefaultAggregationSelector(k)
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("metrics exporter: %w", err)
	}
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter), sdkmetric.WithView(helpViews()...))
	m := &metrics{
		provider: provider,
		reg:      reg,
		own:      own,
		handler: temporalNamespaceTags{temporalotel.NewMetricsHandler(temporalotel.MetricsHandlerOptions{
			Meter: provider.Meter("checkpoint-finalizer"),
			// Counters only ever grow; monotonic makes them Prometheus counters.
			UseMonotonicCounters: true,
			// The default panics: a metric must never take the worker down.
			OnError: func(err error) { log.Warn("metric not recorded", "error", err) },
		})},
		log:    log,
		served: make(chan error, 1),
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("metrics listen on %s: %w", addr, err), provider.Shutdown(context.Background()))
	}
	m.addr = ln.Addr().String()
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}))
	mux.HandleFunc("GET /livez", live)
	mux.HandleFunc("GET /readyz", m.readyz)
	// /healthz is /readyz under the name the compose file and the
	// healthcheck command have always asked.
	mux.HandleFunc("GET /healthz", m.readyz)
	mux.HandleFunc("GET "+BackupPath, m.serveBackup)
	m.server = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { m.served <- m.server.Serve(ln) }()
	return m, nil
}

// watchStore exports the HA reference store's state (MetricStoreUp) from
// now on: 0 until the returned storeUp is told the store is open.
func (m *metrics) watchStore(kind StoreKind) *storeUp {
	u := newStoreUp(kind)
	if m.own != nil {
		m.own.MustRegister(u)
	}
	return u
}

// close stops the endpoint and the meter provider.
func (m *metrics) close(ctx context.Context) error {
	if m.server == nil {
		return nil
	}
	var errs []error
	if err := m.server.Shutdown(ctx); err != nil {
		errs = append(errs, fmt.Errorf("metrics server: %w", err))
	}
	if err := <-m.served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		errs = append(errs, fmt.Errorf("metrics server: %w", err))
	}
	if err := m.provider.Shutdown(ctx); err != nil {
		errs = append(errs, fmt.Errorf("meter provider: %w", err))
	}
	return errors.Join(errs...)
}

// MetricBuildInfo is 1, labelled with the running build, so dashboards can
// tell which version each worker runs.
const MetricBuildInfo = "finalizer_build_info"

func buildInfo() prometheus.Collector {
	v := version.Read()
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        MetricBuildInfo,
		Help:        "The running build of finalizer-worker (always 1).",
		ConstLabels: prometheus.Labels{"version": v.Version, "revision": v.Revision, "go": v.GoVersion},
	})
	g.Set(1)
	return g
}
