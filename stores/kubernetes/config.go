package kubernetes

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Defaults of Config.
const (
	DefaultRequestTimeout = 10 * time.Second
	DefaultMaxAttempts    = 16
	DefaultQPS            = 50
	DefaultBurst          = 100
)

// inClusterNamespaceFile is where a pod's service account namespace lives.
const inClusterNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

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
	// copied, never modified.
	REST *rest.Config

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

// Validate checks the configuration without touching the network.
func (c Config) Validate() error {
	var errs []error
	sources := 0
	for _, set := range []bool{c.InCluster, c.Kubeconfig != "", c.REST != nil} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		errs = append(errs, errors.New("exactly one of InCluster, Kubeconfig and REST must be set"))
	}
	if c.Context != "" && c.Kubeconfig == "" {
		errs = append(errs, errors.New("Context needs Kubeconfig"))
	}
	if c.Namespace != "" {
		if msgs := validation.IsDNS1123Label(c.Namespace); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("namespace %q: %s", c.Namespace, strings.Join(msgs, "; ")))
		}
	}
	if c.REST != nil && c.REST.Host == "" {
		errs = append(errs, errors.New("REST.Host is empty"))
	}
	if c.RequestTimeout < 0 || c.MaxAttempts < 0 || c.QPS < 0 || c.Burst < 0 {
		errs = append(errs, errors.New("RequestTimeout, MaxAttempts, QPS and Burst must not be negative"))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("kubernetes store config: %w", err)
	}
	return nil
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
		rc, err := rest.InClusterConfig()
		if err != nil {
			return nil, "", fmt.Errorf("kubernetes store: in-cluster config: %w", err)
		}
		ns := c.Namespace
		if ns == "" {
			b, err := os.ReadFile(inClusterNamespaceFile)
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
