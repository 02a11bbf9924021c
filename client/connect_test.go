package client_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/mtlstest"
)

func TestConnectionPlaintextByDefault(t *testing.T) {
	t.Parallel()
	opts, err := client.Connection{Address: "127.0.0.1:7233", Namespace: "ns"}.Options()
	require.NoError(t, err)
	assert.Nil(t, opts.ConnectionOptions.TLS, "the dev server speaks plaintext")
	assert.Nil(t, opts.Credentials)
	assert.Equal(t, "127.0.0.1:7233", opts.HostPort)
	assert.Equal(t, "ns", opts.Namespace)
}

func TestConnectionAPIKey(t *testing.T) {
	t.Parallel()
	opts, err := client.Connection{Address: "x.tmprl.cloud:7233", APIKey: "k"}.Options()
	require.NoError(t, err)
	assert.NotNil(t, opts.Credentials, "the SDK turns TLS on for an API key")

	file := filepath.Join(t.TempDir(), "key")
	require.NoError(t, os.WriteFile(file, []byte("from-file\n"), 0o600))
	opts, err = client.Connection{APIKeyFile: file}.Options()
	require.NoError(t, err)
	assert.NotNil(t, opts.Credentials)
	require.NoError(t, os.WriteFile(file, []byte("\n"), 0o600))
	problems := client.Connection{APIKeyFile: file}.Check()
	require.Len(t, problems, 1)
	assert.Equal(t, client.SettingAPIKeyFile, problems[0].Setting)
	assert.ErrorContains(t, problems[0], "is empty")

	c := client.Connection{Address: "a:1", APIKey: "s3cret"}
	assert.NotContains(t, fmt.Sprintf("%v %+v %#v %s", c, c, c, c), "s3cret")
}

func TestConnectionTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pki, err := mtlstest.NewPKI(dir)
	require.NoError(t, err)

	opts, err := client.Connection{TLS: client.TLSConfig{CAFile: pki.CAFile, CertFile: pki.ClientCert, KeyFile: pki.ClientKey,
		ServerName: "temporal.internal"}}.Options()
	require.NoError(t, err)
	cfg := opts.ConnectionOptions.TLS
	require.NotNil(t, cfg)
	assert.NotNil(t, cfg.RootCAs)
	require.NotNil(t, cfg.GetClientCertificate, "the client certificate, read again when its files change")
	cert, err := cfg.GetClientCertificate(nil)
	require.NoError(t, err)
	assert.NotEmpty(t, cert.Certificate)
	assert.Equal(t, "temporal.internal", cfg.ServerName)

	opts, err = client.Connection{TLS: client.TLSConfig{Enabled: true}}.Options()
	require.NoError(t, err)
	require.NotNil(t, opts.ConnectionOptions.TLS)
	assert.Nil(t, opts.ConnectionOptions.TLS.RootCAs, "system roots")

	// Every problem at once, each naming its setting.
	problems := client.Connection{
		TLS:        client.TLSConfig{CAFile: pki.ClientKey, CertFile: pki.ClientCert},
		APIKeyFile: filepath.Join(dir, "missing"),
	}.Check()
	got := map[string]string{}
	for _, p := range problems {
		got[p.Setting] = p.Err.Error()
	}
	assert.Contains(t, got[client.SettingTLSCAFile], "holds no PEM certificate")
	assert.Equal(t, "required when temporal-tls-cert-file is set", got[client.SettingTLSKeyFile])
	assert.Contains(t, got[client.SettingAPIKeyFile], "no such file")

	problems = client.Connection{TLS: client.TLSConfig{CertFile: pki.ClientCert, KeyFile: pki.ServerKey}}.Check()
	require.Len(t, problems, 1)
	assert.Equal(t, client.SettingTLSCertFile, problems[0].Setting, "a key that is not the certificate's")
	_, err = client.Connection{TLS: client.TLSConfig{CAFile: filepath.Join(dir, "missing.pem")}}.Options()
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// LoadTemporalConfig reads a temporal.toml profile with TEMPORAL_* over
// it, as envconfig does for the Temporal CLI. Not parallel: it sets a
// process variable (envconfig lists the TEMPORAL_GRPC_META_* names there).
func TestLoadTemporalConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "temporal.toml")
	require.NoError(t, os.WriteFile(path, []byte(`
[profile.default]
address = "file:7233"
namespace = "file-ns"
api_key = "file-key"
[profile.default.tls]
server_ca_cert_path = "/ca.pem"
client_cert_path = "/c.pem"
client_key_path = "/k.pem"
server_name = "t.example"
[profile.plain]
address = "plain:7233"
[profile.plain.tls]
disabled = true
`), 0o600))
	env := map[string]string{"TEMPORAL_CONFIG_FILE": path}
	getenv := func(k string) string { return env[k] }
	c, err := client.LoadTemporalConfig("", getenv)
	require.NoError(t, err)
	assert.Equal(t, client.Connection{Address: "file:7233", Namespace: "file-ns", APIKey: "file-key",
		TLS: client.TLSConfig{Enabled: true, CAFile: "/ca.pem", CertFile: "/c.pem", KeyFile: "/k.pem", ServerName: "t.example"}}, c)

	env["TEMPORAL_NAMESPACE"], env["TEMPORAL_TLS_SERVER_NAME"] = "env-ns", "env.example"
	c, err = client.LoadTemporalConfig("", getenv)
	require.NoError(t, err)
	assert.Equal(t, "env-ns", c.Namespace)
	assert.Equal(t, "env.example", c.TLS.ServerName)

	c, err = client.LoadTemporalConfig("plain", getenv)
	require.NoError(t, err)
	assert.Equal(t, "plain:7233", c.Address)
	assert.Equal(t, "env-ns", c.Namespace, "TEMPORAL_* is over every profile")
	assert.False(t, c.TLS.Enabled, "disabled in the profile")
	env["TEMPORAL_TLS_SERVER_NAME"] = ""

	env["TEMPORAL_GRPC_META_X_TOKEN"] = "t"
	t.Setenv("TEMPORAL_GRPC_META_X_TOKEN", "only its name is read from the process")
	_, err = client.LoadTemporalConfig("", getenv)
	assert.ErrorContains(t, err, "not supported by the finalizer: grpc_meta")

	garbled := filepath.Join(t.TempDir(), "garbled.toml")
	require.NoError(t, os.WriteFile(garbled, []byte("[profile.default]\napi_key = sup3rsecret\n"), 0o600))
	_, err = client.LoadTemporalConfig("", func(k string) string { return map[string]string{"TEMPORAL_CONFIG_FILE": garbled}[k] })
	assert.ErrorContains(t, err, `not valid TOML at line 2 (after key "profile.default.api_key")`)
	assert.NotContains(t, err.Error(), "sup", "the parser's quote of a key is not shown")

	_, err = client.LoadTemporalConfig("", func(k string) string {
		return map[string]string{"TEMPORAL_CONFIG_FILE": filepath.Join(t.TempDir(), "absent.toml")}[k]
	})
	require.NoError(t, err, "no file is no error")
}

// Over lays the higher layer's settings over the lower's.
func TestConnectionOver(t *testing.T) {
	t.Parallel()
	low := client.Connection{Address: "low:1", Namespace: "low", APIKey: "low-key", TLS: client.TLSConfig{CAFile: "low.pem"}}
	high := client.Connection{Address: "high:1", APIKeyFile: "/key", TLS: client.TLSConfig{ServerName: "high.example"}}
	assert.Equal(t, client.Connection{Address: "high:1", Namespace: "low", APIKeyFile: "/key",
		TLS: client.TLSConfig{CAFile: "low.pem", ServerName: "high.example"}}, high.Over(low))
	assert.Equal(t, low, client.Connection{}.Over(low))
}
