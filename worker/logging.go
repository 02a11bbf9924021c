package worker

import (
	"io"
	"log/slog"
	"net/url"
)

// NewLogger builds the process logger from LogLevel and LogFormat (which
// Validate has checked; an unknown level falls back to info).
func NewLogger(cfg Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: durationString}
	if cfg.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// durationString writes durations as Go duration strings ("30s"): the
// JSON handler would write nanoseconds (30000000000), the text handler
// already writes strings.
func durationString(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		return slog.String(a.Key, a.Value.Duration().String())
	}
	return a
}

// LogValue is what a log line shows of a Config: where it connects and how,
// never a secret (only whether one is set) nor a bucket URL's query.
func (c Config) LogValue() slog.Value {
	attrs := []slog.Attr{
		slog.String("temporalAddress", c.Temporal.Address),
		slog.String("namespace", c.Temporal.Namespace),
		slog.String("taskQueue", c.Temporal.TaskQueue),
		slog.Bool("tls", c.Temporal.TLS.On()),
		slog.Bool("apiKey", c.Temporal.APIKey != "" || c.Temporal.APIKeyFile != ""),
		slog.String("store", string(c.Store.Kind)),
	}
	switch c.Store.Kind {
	case StoreEmbedded:
		attrs = append(attrs, slog.String("embeddedPath", c.Store.Embedded.Path))
	case StoreZooKeeper:
		z := c.Store.ZooKeeper
		attrs = append(attrs, slog.Any("zookeeperServers", z.Servers), slog.String("zookeeperRoot", z.Root),
			slog.Duration("zookeeperSessionTimeout", z.SessionTimeout), slog.String("zookeeperDigestUser", z.DigestUser))
	case StoreKubernetes:
		k := c.Store.Kubernetes
		attrs = append(attrs, slog.Bool("kubernetesInCluster", k.InCluster), slog.String("kubeconfig", k.Kubeconfig),
			slog.String("kubernetesContext", k.Context), slog.String("kubernetesNamespace", k.Namespace))
	}
	attrs = append(attrs,
		slog.String("stateBucket", redactURL(c.StateBucket)),
		slog.Int("retain", c.Retain),
		slog.String("metricsAddress", c.MetricsAddress),
		slog.Duration("shutdownGrace", c.ShutdownGrace),
	)
	return slog.GroupValue(attrs...)
}

// redactURL keeps scheme, host and path: user info and query may hold
// credentials (an S3 endpoint's keys, an Azure SAS token).
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable)"
	}
	r := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	return r.String()
}
