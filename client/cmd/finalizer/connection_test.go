package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/internal/flagenv"
)

// resolve runs the global flags' parsing and check as a command does.
func resolve(t *testing.T, env map[string]string, args ...string) (client.Connection, error) {
	t.Helper()
	g := newGlobals(func(k string) string { return env[k] }, nil)
	fs := pflag.NewFlagSet("finalizer", pflag.ContinueOnError)
	g.register(fs)
	require.NoError(t, fs.Parse(args))
	err := refused(append(flagenv.Resolve(fs, g.getenv), g.check()...))
	return g.conn, err
}

// writeTOML writes a temporal.toml and returns the environment naming it.
func writeTOML(t *testing.T, content string) map[string]string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "temporal.toml")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return map[string]string{"TEMPORAL_CONFIG_FILE": path}
}

const profiles = `
[profile.default]
address = "profile:7233"
namespace = "profile-ns"

[profile.other]
address = "other:7233"
api_key = "their-key"
[profile.other.tls]
server_name = "other.example"
`

// Each layer wins over the ones below it: defaults, the temporal.toml
// profile, TEMPORAL_*, FINALIZER_*, flags.
func TestConnectionPrecedence(t *testing.T) {
	t.Parallel()
	env := writeTOML(t, profiles)
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range env {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		name            string
		env             map[string]string
		args            []string
		address, ns     string
		tls, serverName string
	}{
		{"defaults without a file", map[string]string{"TEMPORAL_CONFIG_FILE": filepath.Join(t.TempDir(), "absent.toml")}, nil,
			"127.0.0.1:7233", "default", "", ""},
		{"the default profile", env, nil, "profile:7233", "profile-ns", "", ""},
		{"TEMPORAL_ over the profile", with("TEMPORAL_ADDRESS", "env:7233"), nil, "env:7233", "profile-ns", "", ""},
		{"FINALIZER_ over TEMPORAL_", with("TEMPORAL_ADDRESS", "env:7233", "FINALIZER_TEMPORAL_ADDRESS", "ours:7233"), nil,
			"ours:7233", "profile-ns", "", ""},
		{"the flag over FINALIZER_", with("TEMPORAL_ADDRESS", "env:7233", "FINALIZER_TEMPORAL_ADDRESS", "ours:7233"),
			[]string{"--temporal-address", "flag:7233", "--temporal-namespace", "flag-ns"}, "flag:7233", "flag-ns", "", ""},
		{"TEMPORAL_PROFILE", with("TEMPORAL_PROFILE", "other"), nil, "other:7233", "default", "on", "other.example"},
		{"--temporal-profile over TEMPORAL_PROFILE", with("TEMPORAL_PROFILE", "default"), []string{"--temporal-profile", "other"},
			"other:7233", "default", "on", "other.example"},
		{"a flag over the profile's TLS", with("FINALIZER_TEMPORAL_PROFILE", "other"), []string{"--temporal-tls-server-name", "mine.example"},
			"other:7233", "default", "on", "mine.example"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := resolve(t, tc.env, tc.args...)
			require.NoError(t, err)
			assert.Equal(t, tc.address, conn.Address)
			assert.Equal(t, tc.ns, conn.Namespace)
			assert.Equal(t, tc.tls == "on", conn.TLS.On())
			assert.Equal(t, tc.serverName, conn.TLS.ServerName)
		})
	}

	// A key file of ours replaces the profile's key; our key and our file
	// together are refused.
	keyFile := filepath.Join(t.TempDir(), "key")
	require.NoError(t, os.WriteFile(keyFile, []byte("from-file\n"), 0o600))
	conn, err := resolve(t, with("TEMPORAL_PROFILE", "other"), "--temporal-api-key-file", keyFile)
	require.NoError(t, err)
	assert.Empty(t, conn.APIKey)
	assert.Equal(t, keyFile, conn.APIKeyFile)
	conn, err = resolve(t, with("TEMPORAL_PROFILE", "other"))
	require.NoError(t, err)
	assert.Equal(t, client.Secret("their-key"), conn.APIKey)
	_, err = resolve(t, with(envAPIKey, "inline"), "--temporal-api-key-file", keyFile)
	assert.ErrorContains(t, err, "not both")
}

// A profile that does not load is a usage error naming the file and the
// profile; so are the old spellings of the settings.
func TestConnectionConfigurationErrors(t *testing.T) {
	t.Parallel()
	env := writeTOML(t, profiles)
	env["TEMPORAL_PROFILE"] = "prod"
	_, err := resolve(t, env)
	assert.Equal(t, exitUsage, exitCode(err))
	assert.ErrorContains(t, err, env["TEMPORAL_CONFIG_FILE"]+`, profile "prod" (TEMPORAL_PROFILE)`)

	bad := writeTOML(t, "[profile.default\naddress = ")
	_, err = resolve(t, bad)
	assert.ErrorContains(t, err, bad["TEMPORAL_CONFIG_FILE"])
	assert.ErrorContains(t, err, "not valid TOML at line 2")

	data := writeTOML(t, "[profile.default.tls]\nclient_cert_data = \"PEM\"\nclient_key_data = \"PEM\"\n")
	_, err = resolve(t, data)
	assert.ErrorContains(t, err, "not supported by the finalizer: tls client_cert_data")

	_, err = resolve(t, map[string]string{"FINALIZER_TEMPORAL_TLS": "maybe"})
	assert.ErrorContains(t, err, `--temporal-tls / FINALIZER_TEMPORAL_TLS / TEMPORAL_TLS / profile [tls]: must be true or false (got "maybe")`)

	_, err = resolve(t, map[string]string{"FINALIZER_NAMESPACE": "old"})
	assert.ErrorContains(t, err, "$FINALIZER_NAMESPACE was renamed $FINALIZER_TEMPORAL_NAMESPACE")
}
