package worker

import (
	"bytes"
	"context"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
	"google.golang.org/grpc"

	finalizerclient "github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/version"
)

// collector is an OTLP trace receiver over gRPC on loopback: what an
// OpenTelemetry collector sees of the worker.
type collector struct {
	collectortrace.UnimplementedTraceServiceServer
	addr string
	mu   sync.Mutex
	got  []*tracepb.ResourceSpans
}

func startCollector(t *testing.T) *collector {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	c := &collector{addr: ln.Addr().String()}
	srv := grpc.NewServer()
	collectortrace.RegisterTraceServiceServer(srv, c)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return c
}

func (c *collector) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, req.GetResourceSpans()...)
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

// receivedSpan is a span as exported, with its resource's attributes.
type receivedSpan struct {
	*tracepb.Span
	resource map[string]string
}

func (c *collector) spans() []receivedSpan {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []receivedSpan
	for _, rs := range c.got {
		res := map[string]string{}
		for _, kv := range rs.GetResource().GetAttributes() {
			res[kv.GetKey()] = kv.GetValue().GetStringValue()
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				out = append(out, receivedSpan{Span: s, resource: res})
			}
		}
	}
	return out
}

// A worker with -otlp-endpoint exports, through the SDK's tracing
// interceptor, a span for running the finalization and one for each of
// its activities to a real OTLP receiver, flushed when the worker stops.
// A job manager whose Temporal client traces too (its own interceptor,
// passed in the SDK's client.Options it dials finalizerclient.New's
// client with) gets one trace: the worker's spans descend from its
// StartWorkflow span.
func TestTracingExportsWorkflowAndActivitySpans(t *testing.T) {
	col := startCollector(t)
	d := newDevWorker(t)
	d.cfg.OTLPEndpoint = col.addr
	d.cfg.OTLPInsecure = true
	_, stop := d.start()

	recorder := tracetest.NewSpanRecorder()
	provider := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
	t.Cleanup(func() { _ = provider.Shutdown(context.Background()) })
	tracing, err := temporalotel.NewTracingInterceptor(temporalotel.TracerOptions{Tracer: provider.Tracer("job-manager")})
	require.NoError(t, err)
	tc, err := client.Dial(client.Options{HostPort: d.srv.HostPort, Logger: quietSDKLogger(),
		Interceptors: []interceptor.ClientInterceptor{tracing}})
	require.NoError(t, err)
	t.Cleanup(tc.Close)
	jm := finalizerclient.New(tc, finalizerclient.Options{TaskQueue: d.cfg.Temporal.TaskQueue})

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	claim := contract.ClaimRequest{Cluster: "dev", Job: "job-1", Epoch: 1, Owner: "jm-1"}
	_, err = jm.ClaimEpoch(ctx, claim)
	require.NoError(t, err)
	req := writeCheckpoint(t, d.bucket, claim, 5)
	f, err := jm.Finalize(ctx, req)
	require.NoError(t, err)
	res, err := f.Wait(ctx)
	require.NoError(t, err)
	require.Equal(t, contract.Published, res.Phase, "reason: %s", res.Reason)

	// No waiting: stopping the worker flushed its spans.
	require.NoError(t, stop())
	spans := col.spans()
	var names []string
	for _, s := range spans {
		names = append(names, s.GetName())
	}
	t.Logf("spans received: %v", names)

	var started []sdktrace.ReadOnlySpan
	for _, s := range recorder.Ended() {
		if s.Name() == "StartWorkflow:"+contract.FinalizeWorkflow {
			started = append(started, s)
		}
	}
	require.Len(t, started, 1, "the job manager's StartWorkflow span")
	trigger := started[0].SpanContext()

	run := slices.IndexFunc(spans, func(s receivedSpan) bool {
		return s.GetName() == "RunWorkflow:"+contract.FinalizeWorkflow
	})
	require.GreaterOrEqual(t, run, 0, "a RunWorkflow span among %v", names)
	rs := spans[run]
	assert.Equal(t, TracingServiceName, rs.resource["service.name"])
	assert.Equal(t, version.Read().Version, rs.resource["service.version"])
	tid := trigger.TraceID()
	sid := trigger.SpanID()
	assert.Equal(t, tid[:], rs.GetTraceId(), "the workflow's span is in the job manager's trace")
	assert.Equal(t, sid[:], rs.GetParentSpanId(), "and descends from its StartWorkflow span")

	// The claim, before, is a trace of its own.
	activities := map[string]bool{}
	for _, s := range spans {
		if name, ok := strings.CutPrefix(s.GetName(), "RunActivity:"); ok && bytes.Equal(s.GetTraceId(), tid[:]) {
			activities[name] = true
		}
	}
	for _, want := range []string{"PersistHandle", "Publish"} {
		assert.True(t, activities[want], "a RunActivity:%s span among %v", want, names)
	}
}

// The tracing settings are checked before anything connects, naming the
// flag and its variable.
func TestTracingSettingsValidated(t *testing.T) {
	cases := []struct {
		args  []string
		field string
		rule  string
	}{
		{[]string{"-otlp-endpoint=http://collector:4317"}, "--otlp-endpoint / FINALIZER_OTLP_ENDPOINT", "not host:port"},
		{[]string{"-otlp-endpoint=collector"}, "--otlp-endpoint / FINALIZER_OTLP_ENDPOINT", "not host:port"},
		{[]string{"-otlp-insecure"}, "--otlp-insecure / FINALIZER_OTLP_INSECURE", "needs --otlp-endpoint"},
	}
	for _, tc := range cases {
		cfg, err := LoadConfig(tc.args, env(nil))
		require.NoError(t, err)
		inv := invalidErr(t, cfg.Validate())
		assert.Equal(t, tc.field, inv.Field, "%v", tc.args)
		assert.Contains(t, inv.Rule, tc.rule, "%v", tc.args)
	}
	cfg, err := LoadConfig(nil, env(map[string]string{"FINALIZER_OTLP_ENDPOINT": "otel-collector:4317"}))
	require.NoError(t, err)
	require.NoError(t, cfg.Validate())
	assert.Equal(t, "otel-collector:4317", cfg.OTLPEndpoint)
	assert.False(t, cfg.OTLPInsecure, "TLS unless asked otherwise")
}
