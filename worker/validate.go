package worker

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// Validate checks the configuration without touching the network: every
// rule, and that the TLS and secret files it names load. It reports every
// problem at once (errors.Join of *stores.InvalidError, each naming the
// flag and environment variable), so one fix-and-retry round is enough.
func (c Config) Validate() error {
	var errs []error
	add := func(name, format string, args ...any) {
		errs = append(errs, &stores.InvalidError{Field: field(name), Rule: fmt.Sprintf(format, args...)})
	}
	c.validateTemporal(add)
	c.validateStore(add)
	c.validateRest(add)
	c.validateTracing(add)
	return errors.Join(errs...)
}

type addFunc func(name, format string, args ...any)

func (c Config) validateTemporal(add addFunc) {
	t := c.Temporal
	if err := checkHostPort(t.Address, false); err != nil {
		add("temporal-address", "%v", err)
	}
	if strings.TrimSpace(t.Namespace) == "" {
		add("temporal-namespace", "must not be empty")
	}
	if strings.TrimSpace(t.TaskQueue) == "" {
		add("task-queue", "must not be empty")
	}
	for _, e := range t.Check() {
		add(e.Setting, "%v", e.Err)
	}
}

func (c Config) validateStore(add addFunc) {
	s := c.Store
	switch s.Kind {
	case StoreEmbedded:
		if strings.TrimSpace(s.Embedded.Path) == "" {
			add("embedded-path", "required with --store=embedded")
		}
	case StoreZooKeeper:
		c.validateZooKeeper(add)
	case StoreKubernetes:
		c.validateKubernetes(add)
	default:
		add("store", "%q is not one of %s", s.Kind, joinKinds())
	}
	if err := checkBucketURL(c.StateBucket); err != nil {
		add("state-bucket", "%v", err)
	}
	if _, err := blobstate.ParseLayout(c.Clusters); err != nil {
		if inv, ok := errors.AsType[*stores.InvalidError](err); ok {
			err = errors.New(inv.Rule)
		}
		add("clusters", "%v", err)
	}
}

// zookeeperFields maps the field names of zookeeper.Config.Validate to
// the settings that feed them.
var zookeeperFields = map[string]string{
	"servers":         "zookeeper-servers",
	"root":            "zookeeper-root",
	"session timeout": "zookeeper-session-timeout",
	"digest":          "zookeeper-digest-user",
	"digest user":     "zookeeper-digest-user",
}

func (c Config) validateZooKeeper(add addFunc) {
	z := c.Store.ZooKeeper
	if z.DigestPassword != "" && z.DigestPasswordFile != "" {
		add("zookeeper-digest-password-file", "set either %s or the file, not both", envZKPassword)
		return
	}
	password, err := readSecret(z.DigestPassword, z.DigestPasswordFile)
	if err != nil {
		add("zookeeper-digest-password-file", "%v", err)
		return
	}
	// The backend owns its rules; only the names are translated.
	err = c.zookeeperConfig(password).Validate()
	if inv, ok := errors.AsType[*stores.InvalidError](err); ok {
		name, known := zookeeperFields[inv.Field]
		if !known {
			name = "zookeeper " + inv.Field
		}
		add(name, "%s", inv.Rule)
	} else if err != nil {
		add("store", "zookeeper: %v", err)
	}
}

func (c Config) validateKubernetes(add addFunc) {
	k := c.Store.Kubernetes
	switch {
	case k.InCluster && k.Kubeconfig != "":
		add("kubernetes-kubeconfig", "set either --kubernetes-kubeconfig or --kubernetes-in-cluster, not both")
	case !k.InCluster && k.Kubeconfig == "":
		add("kubernetes-kubeconfig", "required with --store=kubernetes unless --kubernetes-in-cluster is set")
	case k.Kubeconfig != "":
		if _, err := os.Stat(k.Kubeconfig); err != nil {
			add("kubernetes-kubeconfig", "%v", err)
		}
	}
	if k.Context != "" && k.Kubeconfig == "" {
		add("kubernetes-context", "needs --kubernetes-kubeconfig")
	}
	if k.Namespace != "" {
		if msgs := validation.IsDNS1123Label(k.Namespace); len(msgs) > 0 {
			add("kubernetes-namespace", "%q: %s", k.Namespace, strings.Join(msgs, "; "))
		}
	}
}

func (c Config) validateRest(add addFunc) {
	if c.Retain < 0 {
		add("retain", "must not be negative (0 keeps every reference), got %d", c.Retain)
	}
	// The activities own the floors' rules; only the names are translated.
	floors := reconcileacts.Floors{Grace: c.ReconcileMinGrace, TombstoneTTL: c.ReconcileMinTombstoneTTL}
	if err, ok := floors.Validate().(interface{ Unwrap() []error }); ok {
		for _, e := range err.Unwrap() {
			if inv, ok := errors.AsType[*stores.InvalidError](e); ok {
				add(floorSettings[inv.Field], "%s", inv.Rule)
			}
		}
	}
	if c.MetricsAddress != "" {
		if err := checkHostPort(c.MetricsAddress, true); err != nil {
			add("metrics-address", "%v", err)
		}
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.LogLevel)); err != nil {
		add("log-level", "%q is not one of debug, info, warn, error", c.LogLevel)
	}
	if c.LogFormat != "json" && c.LogFormat != "text" {
		add("log-format", "%q is not json or text", c.LogFormat)
	}
	if c.ShutdownGrace < 0 {
		add("shutdown-grace", "must not be negative, got %s", c.ShutdownGrace)
	}
	if c.WorkflowCache < 1 {
		add("workflow-cache", "must be at least 1, got %d", c.WorkflowCache)
	}
}

// floorSettings maps the fields of reconcileacts.Floors.Validate to the
// settings that feed them.
var floorSettings = map[string]string{
	reconcileacts.FieldGraceFloor:        "reconcile-min-grace",
	reconcileacts.FieldTombstoneTTLFloor: "reconcile-min-tombstone-ttl",
}

// checkHostPort accepts host:port; the host may be empty (all interfaces)
// only for a listening address, and port 0 (any free port) likewise.
func checkHostPort(addr string, listen bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port", addr)
	}
	if host == "" && !listen {
		return fmt.Errorf("%q has no host", addr)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 || n == 0 && !listen {
		return fmt.Errorf("%q: port must be a number from 1 to 65535", addr)
	}
	return nil
}

// checkBucketURL checks, without opening anything, what blobstate.Open
// would refuse. It never echoes the URL: its query may carry credentials.
func checkBucketURL(raw string) error {
	if strings.TrimSpace(raw) == "" {
		return errors.New("must not be empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("does not parse as a URL")
	}
	if !slices.Contains(blobstate.Schemes(), u.Scheme) {
		return fmt.Errorf("scheme %q is not one of %s", u.Scheme, bucketSchemes())
	}
	switch u.Scheme {
	case "file":
		if p := strings.TrimPrefix(u.Path, "/"); p == "" {
			return errors.New("file:// needs a directory, e.g. file:///var/lib/finalizer/state")
		}
		if m, ok := u.Query()["metadata"]; ok && (len(m) != 1 || m[0] != "skip") {
			return errors.New("file:// supports only metadata=skip")
		}
	case "s3", "gs", "azblob":
		if u.Host == "" {
			return fmt.Errorf("%s:// needs a bucket name as host", u.Scheme)
		}
	}
	return nil
}

func bucketSchemes() string {
	schemes := blobstate.Schemes()
	out := make([]string, len(schemes))
	for i, s := range schemes {
		out[i] = s + "://"
	}
	return strings.Join(out, ", ")
}

func joinKinds() string {
	out := make([]string, len(StoreKinds))
	for i, k := range StoreKinds {
		out[i] = string(k)
	}
	return strings.Join(out, ", ")
}
