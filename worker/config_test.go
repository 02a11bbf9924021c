package worker

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/client/connflags"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/flagenv"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// env is a getenv over a map.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestDefaultsAreValid(t *testing.T) {
	cfg, err := LoadConfig(nil, env(nil))
	require.NoError(t, err)
	assert.Equal(t, DefaultConfig(), cfg)
	require.NoError(t, cfg.Validate())
	assert.Equal(t, "127.0.0.1:7233", cfg.Temporal.Address)
	assert.Equal(t, "default", cfg.Temporal.Namespace)
	assert.Equal(t, contract.DefaultTaskQueue, cfg.Temporal.TaskQueue)
	assert.Equal(t, StoreEmbedded, cfg.Store.Kind)
	assert.Equal(t, 1, cfg.Retain)
	assert.Equal(t, "127.0.0.1:9464", cfg.MetricsAddress)
}

func TestFlagWinsOverEnvironment(t *testing.T) {
	vars := map[string]string{
		"FINALIZER_TEMPORAL_ADDRESS":            "temporal:7233",
		"FINALIZER_STORE":                       "zookeeper",
		"FINALIZER_ZOOKEEPER_SERVERS":           "zk1:2181, zk2:2181,",
		"FINALIZER_ZOOKEEPER_SESSION_TIMEOUT":   "20s",
		"FINALIZER_ZOOKEEPER_DIGEST_USER":       "finalizer",
		"FINALIZER_ZOOKEEPER_DIGEST_PASSWORD":   "hunter2",
		"FINALIZER_RETAIN":                      "3",
		"FINALIZER_KUBERNETES_IN_CLUSTER":       "true",
		"FINALIZER_METRICS_ADDRESS":             "off",
		"FINALIZER_TEMPORAL_API_KEY":            "key-from-env",
		"FINALIZER_TEMPORAL_TLS_SERVER_NAME":    "ignored-because-flag-wins",
		"FINALIZER_SHUTDOWN_GRACE":              "1m",
		"UNRELATED_VARIABLE_IS_NEVER_CONSULTED": "x",
	}
	cfg, err := LoadConfig([]string{"-retain=5", "-temporal-tls-server-name", "temporal.example", "-temporal-tls"}, env(vars))
	require.NoError(t, err)
	assert.Equal(t, "temporal:7233", cfg.Temporal.Address)
	assert.Equal(t, StoreZooKeeper, cfg.Store.Kind)
	assert.Equal(t, []string{"zk1:2181", "zk2:2181"}, cfg.Store.ZooKeeper.Servers)
	assert.Equal(t, 20*time.Second, cfg.Store.ZooKeeper.SessionTimeout)
	assert.Equal(t, Secret("hunter2"), cfg.Store.ZooKeeper.DigestPassword)
	assert.Equal(t, 5, cfg.Retain, "the flag wins")
	assert.Equal(t, "temporal.example", cfg.Temporal.TLS.ServerName, "the flag wins")
	assert.True(t, cfg.Temporal.TLS.Enabled, "a bare boolean flag")
	assert.True(t, cfg.Store.Kubernetes.InCluster)
	assert.Empty(t, cfg.MetricsAddress, "off disables")
	assert.Equal(t, time.Minute, cfg.ShutdownGrace)
	require.NoError(t, cfg.Validate())

	cfg, err = LoadConfig([]string{"-metrics-address="}, env(map[string]string{"FINALIZER_METRICS_ADDRESS": "0.0.0.0:9464"}))
	require.NoError(t, err)
	assert.Empty(t, cfg.MetricsAddress, "an explicitly empty flag disables too")
}

// Secrets have no flag: a command line is visible to every process.
func TestSecretsHaveNoFlag(t *testing.T) {
	for _, arg := range []string{"-temporal-api-key=k", "-zookeeper-digest-password=p"} {
		_, err := LoadConfig([]string{arg}, env(nil))
		require.ErrorIs(t, err, stores.ErrInvalid, arg)
		assert.ErrorContains(t, err, "unknown flag: -"+arg[:strings.Index(arg, "=")])
	}
}

func TestParseErrorsNameTheirSource(t *testing.T) {
	// The flag and its variable, as Validate names them: whichever the
	// value came from, the reader finds both.
	_, err := LoadConfig(nil, env(map[string]string{"FINALIZER_RETAIN": "three"}))
	inv := invalidErr(t, err)
	assert.Equal(t, "--retain / FINALIZER_RETAIN", inv.Field)
	assert.Equal(t, `must be a whole number (got "three")`, inv.Rule)

	_, err = LoadConfig([]string{"-shutdown-grace=soon"}, env(nil))
	inv = invalidErr(t, err)
	assert.Equal(t, "--shutdown-grace / FINALIZER_SHUTDOWN_GRACE", inv.Field)
	assert.Equal(t, `must be a duration such as 90s, 15m or 1h (got "soon")`, inv.Rule)

	_, err = LoadConfig(nil, env(map[string]string{"FINALIZER_OTLP_INSECURE": "maybe"}))
	assert.ErrorContains(t, err, `invalid --otlp-insecure / FINALIZER_OTLP_INSECURE: must be true or false (got "maybe")`)

	_, err = LoadConfig([]string{"stray"}, env(nil))
	assert.ErrorContains(t, err, `unexpected argument "stray"`)

	_, err = LoadConfig([]string{"-h"}, env(nil))
	assert.ErrorIs(t, err, pflag.ErrHelp)
}

// Every bad configuration is refused by Validate, before anything
// connects, with the flag, its variable and the rule.
func TestValidateRefusesBadConfiguration(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := writeKeyPair(t, dir)
	cases := []struct {
		name  string
		vars  map[string]string
		args  []string
		field string
		rule  string
	}{
		{"zookeeper without servers", map[string]string{"FINALIZER_STORE": "zookeeper"}, nil,
			"--zookeeper-servers / FINALIZER_ZOOKEEPER_SERVERS", "at least one host:port"},
		{"zookeeper server without port", map[string]string{"FINALIZER_STORE": "zookeeper", "FINALIZER_ZOOKEEPER_SERVERS": "zk1"}, nil,
			"--zookeeper-servers / FINALIZER_ZOOKEEPER_SERVERS", "not host:port"},
		{"zookeeper root relative", nil, []string{"-store=zookeeper", "-zookeeper-servers=zk:2181", "-zookeeper-root=flink"},
			"--zookeeper-root / FINALIZER_ZOOKEEPER_ROOT", "absolute path"},
		{"zookeeper user without password", nil, []string{"-store=zookeeper", "-zookeeper-servers=zk:2181", "-zookeeper-digest-user=u"},
			"--zookeeper-digest-user / FINALIZER_ZOOKEEPER_DIGEST_USER", "set together"},
		{"zookeeper password file missing", nil, []string{"-store=zookeeper", "-zookeeper-servers=zk:2181", "-zookeeper-digest-user=u",
			"-zookeeper-digest-password-file=" + filepath.Join(dir, "absent")},
			"--zookeeper-digest-password-file / FINALIZER_ZOOKEEPER_DIGEST_PASSWORD_FILE", "no such file"},
		{"bad bucket scheme", map[string]string{"FINALIZER_STATE_BUCKET": "ftp://host/dir"}, nil,
			"--state-bucket / FINALIZER_STATE_BUCKET", `scheme "ftp" is not one of`},
		{"file bucket without directory", nil, []string{"-state-bucket=file://"},
			"--state-bucket / FINALIZER_STATE_BUCKET", "needs a directory"},
		{"s3 bucket without name", nil, []string{"-state-bucket=s3:///x"},
			"--state-bucket / FINALIZER_STATE_BUCKET", "needs a bucket name"},
		{"TLS cert without key", nil, []string{"-temporal-tls-cert-file=" + certFile},
			"--temporal-tls-key-file / FINALIZER_TEMPORAL_TLS_KEY_FILE / TEMPORAL_TLS_CLIENT_KEY_PATH / profile tls.client_key_path", "required when temporal-tls-cert-file is set"},
		{"TLS key without cert", map[string]string{"FINALIZER_TEMPORAL_TLS_KEY_FILE": keyFile}, nil,
			"--temporal-tls-cert-file / FINALIZER_TEMPORAL_TLS_CERT_FILE / TEMPORAL_TLS_CLIENT_CERT_PATH / profile tls.client_cert_path", "required when temporal-tls-key-file is set"},
		{"TLS key pair mismatch", nil, []string{"-temporal-tls-cert-file=" + certFile, "-temporal-tls-key-file=" + certFile},
			"--temporal-tls-cert-file / FINALIZER_TEMPORAL_TLS_CERT_FILE / TEMPORAL_TLS_CLIENT_CERT_PATH / profile tls.client_cert_path", ""},
		{"TLS CA not PEM", nil, []string{"-temporal-tls-ca-file=" + writeFile(t, dir, "ca.pem", "not a certificate")},
			"--temporal-tls-ca-file / FINALIZER_TEMPORAL_TLS_CA_FILE / TEMPORAL_TLS_SERVER_CA_CERT_PATH / profile tls.server_ca_cert_path", "no PEM certificate"},
		{"API key twice", map[string]string{"FINALIZER_TEMPORAL_API_KEY": "k"}, []string{"-temporal-api-key-file=" + writeFile(t, dir, "key", "k")},
			"--temporal-api-key-file / FINALIZER_TEMPORAL_API_KEY_FILE", "not both"},
		{"empty API key file", nil, []string{"-temporal-api-key-file=" + writeFile(t, dir, "empty", "\n")},
			"--temporal-api-key-file / FINALIZER_TEMPORAL_API_KEY_FILE", "is empty"},
		{"clusters whose directories nest", map[string]string{"FINALIZER_CLUSTERS": "a=flink/a,b=flink/a/b"}, nil,
			"--clusters / FINALIZER_CLUSTERS", "nest"},
		{"clusters entry without directory", nil, []string{"-clusters=prod-eu"},
			"--clusters / FINALIZER_CLUSTERS", "want cluster=dir"},
		{"negative retention", map[string]string{"FINALIZER_RETAIN": "-1"}, nil,
			"--retain / FINALIZER_RETAIN", "must not be negative"},
		{"unknown store kind", map[string]string{"FINALIZER_STORE": "etcd"}, nil,
			"--store / FINALIZER_STORE", `"etcd" is not one of embedded, zookeeper, kubernetes`},
		{"embedded without path", nil, []string{"-embedded-path="},
			"--embedded-path / FINALIZER_EMBEDDED_PATH", "required"},
		{"kubernetes without source", nil, []string{"-store=kubernetes"},
			"--kubernetes-kubeconfig / FINALIZER_KUBERNETES_KUBECONFIG", "unless --kubernetes-in-cluster"},
		{"kubernetes both sources", nil, []string{"-store=kubernetes", "-kubernetes-in-cluster", "-kubernetes-kubeconfig=" + certFile},
			"--kubernetes-kubeconfig / FINALIZER_KUBERNETES_KUBECONFIG", "not both"},
		{"kubernetes context without kubeconfig", nil, []string{"-store=kubernetes", "-kubernetes-in-cluster", "-kubernetes-context=dev"},
			"--kubernetes-context / FINALIZER_KUBERNETES_CONTEXT", "needs --kubernetes-kubeconfig"},
		{"kubernetes bad namespace", nil, []string{"-store=kubernetes", "-kubernetes-in-cluster", "-kubernetes-namespace=Flink_HA"},
			"--kubernetes-namespace / FINALIZER_KUBERNETES_NAMESPACE", "RFC 1123"},
		{"kubernetes negative qps", map[string]string{"FINALIZER_KUBERNETES_QPS": "-5"}, []string{"-store=kubernetes", "-kubernetes-in-cluster"},
			"--kubernetes-qps / FINALIZER_KUBERNETES_QPS", "must not be negative"},
		{"kubernetes negative burst", nil, []string{"-store=kubernetes", "-kubernetes-in-cluster", "-kubernetes-burst=-1"},
			"--kubernetes-burst / FINALIZER_KUBERNETES_BURST", "must not be negative"},
		{"temporal address without port", nil, []string{"-temporal-address=temporal"},
			"--temporal-address / FINALIZER_TEMPORAL_ADDRESS / TEMPORAL_ADDRESS / profile address", "not host:port"},
		{"empty namespace", nil, []string{"-temporal-namespace= "},
			"--temporal-namespace / FINALIZER_TEMPORAL_NAMESPACE / TEMPORAL_NAMESPACE / profile namespace", "must not be empty"},
		{"metrics address garbage", nil, []string{"-metrics-address=9464"},
			"--metrics-address / FINALIZER_METRICS_ADDRESS", "not host:port"},
		{"log level", nil, []string{"-log-level=verbose"}, "--log-level / FINALIZER_LOG_LEVEL", "not one of"},
		{"log format", nil, []string{"-log-format=xml"}, "--log-format / FINALIZER_LOG_FORMAT", "not json or text"},
		{"negative grace", nil, []string{"-shutdown-grace=-1s"}, "--shutdown-grace / FINALIZER_SHUTDOWN_GRACE", "must not be negative"},
		{"empty workflow cache", nil, []string{"-workflow-cache=0"}, "--workflow-cache / FINALIZER_WORKFLOW_CACHE", "must be at least 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := LoadConfig(tc.args, env(tc.vars))
			require.NoError(t, err)
			err = cfg.Validate()
			inv := invalidErr(t, err)
			assert.Equal(t, tc.field, inv.Field)
			assert.Contains(t, inv.Rule, tc.rule)
		})
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	cfg, err := LoadConfig([]string{"-retain=-2", "-log-format=xml"}, env(map[string]string{"FINALIZER_STORE": "zookeeper"}))
	require.NoError(t, err)
	err = cfg.Validate()
	require.ErrorIs(t, err, stores.ErrInvalid)
	for _, want := range []string{"--zookeeper-servers", "--retain", "--log-format"} {
		assert.ErrorContains(t, err, want)
	}
}

func TestTLSAndAPIKeyLoad(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := writeKeyPair(t, dir)
	cfg, err := LoadConfig([]string{
		"-temporal-tls-ca-file=" + certFile, "-temporal-tls-cert-file=" + certFile, "-temporal-tls-key-file=" + keyFile,
		"-temporal-api-key-file=" + writeFile(t, dir, "api-key", "secret-key\n"),
	}, env(nil))
	require.NoError(t, err)
	require.NoError(t, cfg.Validate())
	opts, err := cfg.Temporal.Options()
	require.NoError(t, err)
	require.NotNil(t, opts.ConnectionOptions.TLS)
	require.NotNil(t, opts.ConnectionOptions.TLS.GetClientCertificate, "the client certificate, read again when its files change")
	cert, err := opts.ConnectionOptions.TLS.GetClientCertificate(nil)
	require.NoError(t, err)
	assert.NotEmpty(t, cert.Certificate)
	assert.NotNil(t, opts.ConnectionOptions.TLS.RootCAs)
	assert.NotNil(t, opts.Credentials)

	cfg = DefaultConfig()
	opts, err = cfg.Temporal.Options()
	require.NoError(t, err)
	assert.Nil(t, opts.ConnectionOptions.TLS, "plaintext by default, like the dev server")
	assert.Nil(t, opts.Credentials)
}

// Secrets never reach a log line, a formatted error or a JSON dump.
func TestSecretsNeverPrinted(t *testing.T) {
	cfg, err := LoadConfig([]string{"-store=zookeeper", "-zookeeper-servers=zk:2181", "-zookeeper-digest-user=finalizer",
		"-state-bucket=s3://bkt?endpoint=http%3A%2F%2Fs3.local&secret=bucket-secret"},
		env(map[string]string{"FINALIZER_TEMPORAL_API_KEY": "api-secret", "FINALIZER_ZOOKEEPER_DIGEST_PASSWORD": "zk-secret"}))
	require.NoError(t, err)
	require.NoError(t, cfg.Validate())

	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("config", "config", cfg, "password", cfg.Store.ZooKeeper.DigestPassword)
	dumped, err := json.Marshal(cfg)
	require.NoError(t, err)
	printed := fmt.Sprintf("%v %+v %#v %s", cfg, cfg, cfg, cfg.Temporal.APIKey)
	for _, out := range []string{logged.String(), string(dumped), printed} {
		assert.NotContains(t, out, "api-secret")
		assert.NotContains(t, out, "zk-secret")
	}
	assert.NotContains(t, logged.String(), "bucket-secret", "a bucket URL's query is not logged")
	assert.Contains(t, logged.String(), `"apiKey":true`)
	assert.Contains(t, logged.String(), `"zookeeperDigestUser":"finalizer"`)
	assert.Equal(t, "api-secret", cfg.Temporal.APIKey.Reveal())
}

func TestUsageListsEveryVariable(t *testing.T) {
	var out bytes.Buffer
	Usage(&out)
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	NewFlags(fs)
	fs.VisitAll(func(f *pflag.Flag) {
		assert.Contains(t, out.String(), flagenv.EnvName(f.Name))
	})
	for _, secret := range []string{"FINALIZER_TEMPORAL_API_KEY", "FINALIZER_ZOOKEEPER_DIGEST_PASSWORD"} {
		assert.Contains(t, out.String(), secret)
	}
	assert.NotContains(t, out.String(), "--temporal-api-key ", "a secret has no flag")
}

func invalidErr(t *testing.T, err error) *stores.InvalidError {
	t.Helper()
	require.Error(t, err)
	inv, ok := errors.AsType[*stores.InvalidError](err)
	require.True(t, ok, "want a *stores.InvalidError, got %T: %v", err, err)
	return inv
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

// The Temporal connection's layers, each over the ones below: defaults,
// the temporal.toml profile, TEMPORAL_*, FINALIZER_*, flags.
func TestTemporalConnectionLayers(t *testing.T) {
	dir := t.TempDir()
	toml := writeFile(t, dir, "temporal.toml", `
[profile.default]
address = "profile:7233"
namespace = "profile-ns"
[profile.cloud]
address = "cloud:7233"
api_key = "profile-key"
[profile.cloud.tls]
server_name = "cloud.example"
`)
	layers := func(kv ...string) map[string]string {
		m := map[string]string{"TEMPORAL_CONFIG_FILE": toml}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		name               string
		vars               map[string]string
		args               []string
		address, ns, name2 string
	}{
		{"no file: the defaults", map[string]string{"TEMPORAL_CONFIG_FILE": filepath.Join(dir, "absent")}, nil, connflags.Default.Address, "default", ""},
		{"the default profile", layers(), nil, "profile:7233", "profile-ns", ""},
		{"TEMPORAL_ over the profile", layers("TEMPORAL_ADDRESS", "env:7233"), nil, "env:7233", "profile-ns", ""},
		{"FINALIZER_ over TEMPORAL_", layers("TEMPORAL_ADDRESS", "env:7233", "FINALIZER_TEMPORAL_ADDRESS", "ours:7233"), nil,
			"ours:7233", "profile-ns", ""},
		{"the flag over FINALIZER_", layers("FINALIZER_TEMPORAL_ADDRESS", "ours:7233", "TEMPORAL_NAMESPACE", "env-ns"),
			[]string{"-temporal-address=flag:7233"}, "flag:7233", "env-ns", ""},
		{"TEMPORAL_PROFILE", layers("TEMPORAL_PROFILE", "cloud"), nil, "cloud:7233", "default", "cloud.example"},
		{"-temporal-profile over TEMPORAL_PROFILE", layers("TEMPORAL_PROFILE", "default"),
			[]string{"-temporal-profile=cloud", "-temporal-tls-server-name=mine.example"}, "cloud:7233", "default", "mine.example"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := LoadConfig(tc.args, env(tc.vars))
			require.NoError(t, err)
			assert.Equal(t, tc.address, cfg.Temporal.Address)
			assert.Equal(t, tc.ns, cfg.Temporal.Namespace)
			assert.Equal(t, tc.name2, cfg.Temporal.TLS.ServerName)
			assert.Equal(t, tc.name2 != "", cfg.Temporal.TLS.On())
		})
	}

	// The profile's key, unless a key file of ours replaces it.
	cfg, err := LoadConfig([]string{"-temporal-profile=cloud"}, env(layers()))
	require.NoError(t, err)
	assert.Equal(t, Secret("profile-key"), cfg.Temporal.APIKey)
	keyFile := writeFile(t, dir, "key", "ours\n")
	cfg, err = LoadConfig([]string{"-temporal-profile=cloud", "-temporal-api-key-file=" + keyFile}, env(layers()))
	require.NoError(t, err)
	assert.Empty(t, cfg.Temporal.APIKey)
	require.NoError(t, cfg.Validate())
}

// A profile that does not load is a configuration error, reported with
// every other one.
func TestBadTemporalProfileIsAConfigurationError(t *testing.T) {
	dir := t.TempDir()
	toml := writeFile(t, dir, "temporal.toml", "[profile.default]\naddress = \"x:1\"\n")
	_, err := LoadConfig([]string{"-temporal-profile=prod", "-retain=many"}, env(map[string]string{"TEMPORAL_CONFIG_FILE": toml}))
	require.ErrorIs(t, err, stores.ErrInvalid)
	assert.ErrorContains(t, err, `invalid --temporal-profile / FINALIZER_TEMPORAL_PROFILE / TEMPORAL_PROFILE: temporal.toml `+toml+`, profile "prod" (--temporal-profile)`)
	assert.ErrorContains(t, err, "invalid --retain / FINALIZER_RETAIN")

	garbled := writeFile(t, dir, "garbled.toml", "[profile.default\n")
	_, err = LoadConfig(nil, env(map[string]string{"TEMPORAL_CONFIG_FILE": garbled}))
	assert.ErrorContains(t, err, "temporal.toml "+garbled)
}

// The reconciler's floors (issue 22, finding 5) default to safe values,
// load from a flag or FINALIZER_*, and are validated with the rest, every
// problem at once, before anything connects.
func TestReconcilerFloors(t *testing.T) {
	def := DefaultConfig()
	assert.Equal(t, time.Hour, def.ReconcileMinTombstoneTTL, "far above any activity attempt")
	assert.Equal(t, 15*time.Minute, def.ReconcileMinGrace)

	cfg, err := LoadConfig([]string{"-reconcile-min-tombstone-ttl=30s"}, env(map[string]string{"FINALIZER_RECONCILE_MIN_GRACE": "2s"}))
	require.NoError(t, err)
	assert.Equal(t, 30*time.Second, cfg.ReconcileMinTombstoneTTL)
	assert.Equal(t, 2*time.Second, cfg.ReconcileMinGrace)
	require.NoError(t, cfg.Validate())

	cfg, err = LoadConfig([]string{"-reconcile-min-tombstone-ttl=10ms", "-retain=-1"}, env(map[string]string{"FINALIZER_RECONCILE_MIN_GRACE": "-1s"}))
	require.NoError(t, err)
	err = cfg.Validate()
	require.ErrorIs(t, err, stores.ErrInvalid)
	assert.ErrorContains(t, err, "--reconcile-min-tombstone-ttl / FINALIZER_RECONCILE_MIN_TOMBSTONE_TTL: must be at least 1s, got 10ms")
	assert.ErrorContains(t, err, "--reconcile-min-grace / FINALIZER_RECONCILE_MIN_GRACE: must not be negative, got -1s")
	assert.ErrorContains(t, err, "-retain")
}

// The digest password file is read when the configuration is checked and
// when the store opens, never kept in the Config: what prints of it holds
// only the file's path, and an error about it never the password.
func TestZooKeeperPasswordFile(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "zk-password", "zk-secret\n")
	args := []string{"-store=zookeeper", "-zookeeper-servers=zk:2181", "-zookeeper-digest-user=finalizer", "-zookeeper-digest-password-file=" + file}
	cfg, err := LoadValidConfig(args, env(nil))
	require.NoError(t, err)
	z, err := cfg.Store.zookeeper()
	require.NoError(t, err)
	assert.Equal(t, "zk-secret", z.DigestPassword.Reveal(), "trailing newline dropped")
	assert.Empty(t, cfg.Store.ZooKeeper.DigestPassword, "read, not kept")

	_, err = LoadValidConfig(args, env(map[string]string{"FINALIZER_ZOOKEEPER_DIGEST_PASSWORD": "env-secret"}))
	inv := invalidErr(t, err)
	assert.Equal(t, "--zookeeper-digest-password-file / FINALIZER_ZOOKEEPER_DIGEST_PASSWORD_FILE", inv.Field)
	assert.Contains(t, inv.Rule, "not both")
	assert.NotContains(t, err.Error(), "env-secret")
}
