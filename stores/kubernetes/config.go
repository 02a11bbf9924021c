package kubernetes

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	certutil "k8s.io/client-go/util/cert"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Defaults of Config.
const (
	DefaultRequestTimeout = 10 * time.Second
	DefaultMaxAttempts    = 16
	DefaultQPS            = 50
	DefaultBurst          = 100
)

// serviceAccountDir is where the kubelet mounts a pod's service account:
// token, ca.crt and namespace. A variable only so that a test can fake a
// pod's files without writing to /var/run on its host.
var serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// Config says how to reach the API server and which namespace holds the
// ConfigMaps. Exactly one of InCluster, Kubeconfig and REST is set.
type Config struct {
	// Namespace holding the job ConfigMaps. Empty: the pod's namespace
	// (InCluster) or the kubeconfig context's namespace.
	Namespace string
	// InCluster uses the pod's service account token and CA.
	InCluster bool
	// Kubeconfig is the path of a kubeconfig file; Context selects one of
	// its contexts (empty: the current context).
	Kubeconfig string
	Context    string
	// REST is a ready client configuration, for embedding and tests. It is
	// copied, never modified. A Config dumped as JSON leaves it out: it
	// holds functions and credentials.
	REST *rest.Config `json:"-"`

	// RequestTimeout bounds each request. A write cut by it is Unknown.
	RequestTimeout time.Duration
	// MaxAttempts bounds the read-decide-write passes of one call (409,
	// AlreadyExists, 429 each cost one). Running out is Unknown.
	MaxAttempts int
	// QPS and Burst of the client-side rate limiter.
	QPS   float32
	Burst int
	// Logger receives retries, unknown outcomes and API server warnings;
	// nil is slog.Default().
	Logger *slog.Logger
}

// The settings Validate names (stores.InvalidError.Field); a rule that
// involves another setting names it the same way.
const (
	FieldKubeconfig = "kubeconfig"
	FieldInCluster  = "in-cluster"
	FieldContext    = "context"
	FieldNamespace  = "namespace"
	FieldREST       = "REST"
	FieldLimits     = "limits"
	FieldQPS        = "qps"
	FieldBurst      = "burst"
)

// Validate checks the configuration without touching the network. It
// reports every problem at once: errors.Join of *stores.InvalidError, each
// naming its setting (the Field constants).
func (c Config) Validate() error {
	var errs []error
	invalid := func(field, format string, args ...any) {
		errs = append(errs, &stores.InvalidError{Field: field, Rule: fmt.Sprintf(format, args...)})
	}
	var sources []string
	for _, s := range []struct {
		name string
		set  bool
	}{{FieldKubeconfig, c.Kubeconfig != ""}, {FieldInCluster, c.InCluster}, {FieldREST, c.REST != nil}} {
		if s.set {
			sources = append(sources, s.name)
		}
	}
	switch len(sources) {
	case 0:
		invalid(FieldKubeconfig, "required unless %s (or %s) is set", FieldInCluster, FieldREST)
	case 1:
	case 2:
		invalid(sources[0], "set either %s or %s, not both", sources[0], sources[1])
	default:
		invalid(sources[0], "set only one of %s", strings.Join(sources, ", "))
	}
	if c.Context != "" && c.Kubeconfig == "" {
		invalid(FieldContext, "needs %s", FieldKubeconfig)
	}
	if c.Namespace != "" {
		if msgs := validation.IsDNS1123Label(c.Namespace); len(msgs) > 0 {
			invalid(FieldNamespace, "%q: %s", c.Namespace, strings.Join(msgs, "; "))
		}
	}
	if c.REST != nil && c.REST.Host == "" {
		invalid(FieldREST, "has no Host")
	}
	if c.RequestTimeout < 0 || c.MaxAttempts < 0 {
		invalid(FieldLimits, "RequestTimeout and MaxAttempts must not be negative")
	}
	if c.QPS < 0 {
		invalid(FieldQPS, "must not be negative (0: %v)", DefaultQPS)
	}
	if c.Burst < 0 {
		invalid(FieldBurst, "must not be negative (0: %d)", DefaultBurst)
	}
	return errors.Join(errs...)
}

// withDefaults fills the zero fields.
func (c Config) withDefaults() Config {
	if c.RequestTimeout == 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.QPS == 0 {
		c.QPS = DefaultQPS
	}
	if c.Burst == 0 {
		c.Burst = DefaultBurst
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// restConfig loads the client configuration and resolves the namespace.
func (c Config) restConfig() (*rest.Config, string, error) {
	switch {
	case c.REST != nil:
		if c.Namespace == "" {
			return nil, "", errors.New("kubernetes store config: Namespace is required with REST")
		}
		return rest.CopyConfig(c.REST), c.Namespace, nil
	case c.InCluster:
		rc, err := inClusterConfig(serviceAccountDir)
		if err != nil {
			return nil, "", fmt.Errorf("kubernetes store: in-cluster config: %w", err)
		}
		ns := c.Namespace
		if ns == "" {
			b, err := os.ReadFile(filepath.Join(serviceAccountDir, "namespace"))
			if err != nil {
				return nil, "", fmt.Errorf("kubernetes store: in-cluster namespace: %w", err)
			}
			ns = strings.TrimSpace(string(b))
		}
		return rc, ns, nil
	default:
		loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
			&clientcmd.ClientConfigLoadingRules{ExplicitPath: c.Kubeconfig},
			&clientcmd.ConfigOverrides{CurrentContext: c.Context})
		rc, err := loader.ClientConfig()
		if err != nil {
			return nil, "", fmt.Errorf("kubernetes store: kubeconfig %s: %w", c.Kubeconfig, err)
		}
		ns := c.Namespace
		if ns == "" {
			if ns, _, err = loader.Namespace(); err != nil {
				return nil, "", fmt.Errorf("kubernetes store: kubeconfig %s namespace: %w", c.Kubeconfig, err)
			}
		}
		return rc, ns, nil
	}
}

// inClusterConfig is rest.InClusterConfig (which reads the fixed path)
// reading the service account from dir: the API server at
// KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT, the bearer token from
// dir/token and re-read from that file as the kubelet rotates it, the CA
// from dir/ca.crt. Unlike rest.InClusterConfig, a CA that does not load is
// an error, not a log line followed by the system roots.
func inClusterConfig(dir string) (*rest.Config, error) {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, fmt.Errorf("KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set, as in a pod: %w", rest.ErrNotInCluster)
	}
	tokenFile, caFile := filepath.Join(dir, "token"), filepath.Join(dir, "ca.crt")
	token, err := os.ReadFile(tokenFile)
	if err != nil {
		return nil, fmt.Errorf("service account token: %w", err)
	}
	if _, err := certutil.NewPool(caFile); err != nil {
		return nil, fmt.Errorf("service account CA: %w", err)
	}
	return &rest.Config{
		Host:            "https://" + net.JoinHostPort(host, port),
		TLSClientConfig: rest.TLSClientConfig{CAFile: caFile},
		BearerToken:     string(token),
		BearerTokenFile: tokenFile,
	}, nil
}
