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

	reconcileacts "github.com/checkpoint-finalizer/finalizer/activities/reconcile"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
	"github.com/checkpoint-finalizer/finalizer/stores/kubernetes"
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

// zookeeperSettings and kubernetesSettings map the fields the backends'
// Validate names to the settings that feed them.
var (
	zookeeperSettings = map[string]string{
		"servers":         "zookeeper-servers",
		"root":            "zookeeper-root",
		"session timeout": "zookeeper-session-timeout",
		"digest":          "zookeeper-digest-user",
		"digest user":     "zookeeper-digest-user",
	}
	kubernetesSettings = map[string]string{
		kubernetes.FieldKubeconfig: "kubernetes-kubeconfig",
		kubernetes.FieldInCluster:  "kubernetes-in-cluster",
		kubernetes.FieldContext:    "kubernetes-context",
		kubernetes.FieldNamespace:  "kubernetes-namespace",
		kubernetes.FieldQPS:        "kubernetes-qps",
		kubernetes.FieldBurst:      "kubernetes-burst",
	}
	// kubernetesMentions spells, as flags, the sources the Kubernetes
	// rules name (a context needs a kubeconfig, ...).
	kubernetesMentions = strings.NewReplacer(
		kubernetes.FieldKubeconfig, "--kubernetes-kubeconfig",
		kubernetes.FieldInCluster, "--kubernetes-in-cluster")
)

func (c Config) validateZooKeeper(add addFunc) {
	z, err := c.Store.zookeeper()
	if err != nil {
		add("zookeeper-digest-password-file", "%v", err)
		return
	}
	// The backend owns its rules; only the names are translated.
	addOwned(z.Validate(), zookeeperSettings, nil, add)
}

func (c Config) validateKubernetes(add addFunc) {
	k := c.Store.Kubernetes
	addOwned(k.Validate(), kubernetesSettings, kubernetesMentions, add)
	// The one rule that reads a file, which the backend's Validate does not.
	if k.Kubeconfig != "" {
		if _, err := os.Stat(k.Kubeconfig); err != nil {
			add("kubernetes-kubeconfig", "%v", err)
		}
	}
}

// addOwned adds each problem of err, the errors.Join of *stores.InvalidError
// a lower layer's Validate returns (the owner's rules), under the setting
// that feeds its field, with the settings its rule mentions spelled by
// mentions (nil: as they are). A field no setting feeds, and any other
// error, go under --store.
func addOwned(err error, settings map[string]string, mentions *strings.Replacer, add addFunc) {
	if err == nil {
		return
	}
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	for _, e := range errs {
		inv, ok := errors.AsType[*stores.InvalidError](e)
		if !ok {
			add("store", "%v", e)
			continue
		}
		rule := inv.Rule
		if mentions != nil {
			rule = mentions.Replace(rule)
		}
		if name, known := settings[inv.Field]; known {
			add(name, "%s", rule)
		} else {
			add("store", "%s: %s", inv.Field, rule)
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
