package worker

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/embedded"
	"github.com/checkpoint-finalizer/finalizer/stores/kubernetes"
	"github.com/checkpoint-finalizer/finalizer/stores/zookeeper"
)

// storeOpenTimeout bounds waiting for a ZooKeeper session or an answer of
// the Kubernetes API server at start (both reported every few seconds
// meanwhile): an unreachable store should fail the start visibly and let
// the supervisor restart the process with its own backoff, not hang
// silently.
const storeOpenTimeout = time.Minute

// referenceStore is what every backend implements: the store the
// finalization uses, the inventory the reconciler reads and the probe
// readiness asks.
type referenceStore interface {
	stores.ReferenceStore
	stores.Inventory
	// Probe reports whether the store can serve calls now.
	Probe(ctx context.Context) error
}

// openReferences opens the configured HA reference store.
func openReferences(ctx context.Context, cfg Config, log *slog.Logger) (referenceStore, error) {
	switch cfg.Store.Kind {
	case StoreEmbedded:
		path := cfg.Store.Embedded.Path
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("embedded store directory: %w", err)
		}
		s, err := embedded.Open(path)
		if err != nil {
			return nil, fmt.Errorf("open embedded store: %w", err)
		}
		return s, nil
	case StoreZooKeeper:
		z, err := cfg.Store.zookeeper()
		if err != nil {
			return nil, fmt.Errorf("zookeeper digest password: %w", err)
		}
		ctx, cancel := context.WithTimeout(ctx, storeOpenTimeout)
		defer cancel()
		s, err := zookeeper.Open(ctx, z, log.With("component", "zookeeper"))
		if err != nil {
			return nil, fmt.Errorf("open zookeeper store: %w", err)
		}
		return s, nil
	case StoreKubernetes:
		k := cfg.Store.Kubernetes
		k.Logger = log.With("component", "kubernetes")
		ctx, cancel := context.WithTimeout(ctx, storeOpenTimeout)
		defer cancel()
		s, err := kubernetes.Open(ctx, k)
		if err != nil {
			return nil, fmt.Errorf("open kubernetes store: %w", err)
		}
		return s, nil
	}
	// Validate refuses any other kind before Run gets here.
	return nil, fmt.Errorf("unknown store kind %q", cfg.Store.Kind)
}

// zookeeper is the ZooKeeper store's configuration with its digest
// password read from ZooKeeperDigestPasswordFile when that names one.
func (s StoreConfig) zookeeper() (zookeeper.Config, error) {
	z := s.ZooKeeper
	if s.ZooKeeperDigestPasswordFile == "" {
		return z, nil
	}
	if z.DigestPassword != "" {
		return z, fmt.Errorf("set either %s or the file, not both", envZKPassword)
	}
	password, err := client.ReadSecretFile(s.ZooKeeperDigestPasswordFile)
	if err != nil {
		return z, err
	}
	z.DigestPassword = password
	return z, nil
}
