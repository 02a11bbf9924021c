package worker

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
	"google.golang.org/grpc/credentials"

	"github.com/checkpoint-finalizer/finalizer/internal/version"
)

// TracingServiceName is the service.name the worker's spans carry.
const TracingServiceName = "finalizer-worker"

// validateTracing checks the OTLP settings without connecting.
func (c Config) validateTracing(add addFunc) {
	if c.OTLPEndpoint == "" {
		if c.OTLPInsecure {
			add("otlp-insecure", "needs --otlp-endpoint")
		}
		return
	}
	// The exporter takes host:port only: a URL (http://...:4317) would
	// fail at the first export, long after the start.
	if err := checkHostPort(c.OTLPEndpoint, false); err != nil {
		add("otlp-endpoint", "%v (OTLP over gRPC, no scheme)", err)
	}
}

// startTracing builds, when an OTLP endpoint is configured, the SDK's
// tracing interceptor (spans for starting and running workflows and
// activities, linked through the workflow's headers to the span of the
// client that started it) over a tracer provider exporting to the
// endpoint; shutdown flushes what is buffered. Without an endpoint it
// returns no interceptor and a shutdown that does nothing. Nothing
// connects here: spans are exported in the background, and a collector
// that is away costs dropped spans (logged), never the worker.
func startTracing(ctx context.Context, cfg Config, log *slog.Logger) ([]interceptor.ClientInterceptor, func(context.Context) error, error) {
	if cfg.OTLPEndpoint == "" {
		return nil, func(context.Context) error { return nil }, nil
	}
	opts := []otlptracegrpc.Option{otlptracegrpc.WithEndpoint(cfg.OTLPEndpoint)}
	// Explicit either way, so OTEL_EXPORTER_OTLP_INSECURE cannot turn TLS
	// off behind the flag's back.
	if cfg.OTLPInsecure {
		opts = append(opts, otlptracegrpc.WithInsecure())
	} else {
		opts = append(opts, otlptracegrpc.WithTLSCredentials(credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})))
	}
	exporter, err := otlptracegrpc.New(ctx, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("OTLP trace exporter for %s: %w", cfg.OTLPEndpoint, err)
	}
	// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES come last: an
	// operator can rename or label the deployment.
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName(TracingServiceName), semconv.ServiceVersion(version.Read().Version)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(),
	)
	if err != nil {
		return nil, nil, errors.Join(fmt.Errorf("tracing resource: %w", err), exporter.Shutdown(ctx))
	}
	provider := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res))
	// Export failures reach OpenTelemetry's global handler only; its
	// default writes unstructured lines to stderr.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Warn("tracing", "endpoint", cfg.OTLPEndpoint, "error", err)
	}))
	tracer, err := temporalotel.NewTracingInterceptor(temporalotel.TracerOptions{Tracer: provider.Tracer("checkpoint-finalizer")})
	if err != nil {
		return nil, nil, errors.Join(fmt.Errorf("tracing interceptor: %w", err), provider.Shutdown(ctx))
	}
	shutdown := func(ctx context.Context) error {
		if err := provider.Shutdown(ctx); err != nil {
			return fmt.Errorf("tracer provider: %w", err)
		}
		return nil
	}
	return []interceptor.ClientInterceptor{tracer}, shutdown, nil
}
