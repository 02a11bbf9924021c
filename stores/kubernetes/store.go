package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"

	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// fieldManager names this client in the ConfigMaps' managedFields.
const fieldManager = "checkpoint-finalizer"

// ErrClosed is returned by calls on a closed Store. Its outcome is Unknown:
// a closed client says nothing about the store.
var ErrClosed = errors.New("kubernetes store closed")

// Store is a stores.ReferenceStore over ConfigMaps of one namespace. It is
// safe for concurrent use.
type Store struct {
	*stores.Engine
	cfg       Config
	namespace string
	host      string // the API server's URL
	rc        rest.Interface
	log       *slog.Logger
	closed    atomic.Bool
}

var _ stores.ReferenceStore = (*Store)(nil)

// New validates cfg and builds the client. It does not contact the API
// server: the first call does, and reports what it finds.
func New(cfg Config) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("kubernetes store config: %w", err)
	}
	cfg = cfg.withDefaults()
	rc, ns, err := cfg.restConfig()
	if err != nil {
		return nil, err
	}
	if ns == "" {
		return nil, errors.New("kubernetes store config: no namespace given or found in the context")
	}
	if err := (Config{Namespace: ns, REST: rc}).Validate(); err != nil {
		return nil, fmt.Errorf("kubernetes store config: %w", err)
	}
	rc.QPS, rc.Burst = cfg.QPS, cfg.Burst
	rc.UserAgent = "checkpoint-finalizer/kubernetes-store"
	rc.WarningHandlerWithContext = slogWarnings{cfg.Logger}
	rc.WarningHandler = nil
	client, err := corev1client.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("kubernetes store: client: %w", err)
	}
	s := &Store{
		cfg:       cfg,
		namespace: ns,
		host:      rc.Host,
		rc:        client.RESTClient(),
		log:       cfg.Logger.With("store", "kubernetes", "namespace", ns),
	}
	s.Engine = stores.NewEngine(driver{s}, cfg.MaxAttempts)
	return s, nil
}

// Namespace is the namespace holding the ConfigMaps.
func (s *Store) Namespace() string { return s.namespace }

// Close releases idle connections; later calls fail with ErrClosed.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	if rc, ok := s.rc.(*rest.RESTClient); ok && rc.Client != nil {
		rc.Client.CloseIdleConnections()
	}
	return nil
}

func (s *Store) checkOpen(op string) error {
	if s.closed.Load() {
		return stores.Unknownf(ErrClosed, "%s", op)
	}
	return nil
}

// slogWarnings logs the API server's warning headers (deprecations,
// admission warnings) instead of client-go's default stderr printing.
type slogWarnings struct{ log *slog.Logger }

func (w slogWarnings) HandleWarningHeaderWithContext(ctx context.Context, code int, agent, text string) {
	w.log.WarnContext(ctx, "kubernetes API server warning", "code", code, "agent", agent, "text", text)
}
