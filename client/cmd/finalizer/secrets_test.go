package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/e2e/harness"
)

// The tool is given the Temporal API key in every place a user can put it
// (FINALIZER_TEMPORAL_API_KEY, TEMPORAL_API_KEY, the key file flag, a
// temporal.toml profile) and runs commands that connect, succeed or fail:
// nothing it prints shows the key.
func TestAPIKeyNeverPrinted(t *testing.T) {
	const secret = "ApIkEyLeAk"
	keyFile := filepath.Join(t.TempDir(), "api-key")
	require.NoError(t, os.WriteFile(keyFile, []byte(secret+"\n"), 0o600))
	profile := writeTOML(t, "[profile.default]\napi_key = \""+secret+"\"\n")
	// TLS off: the key reaches the dev server, which lets the commands
	// through to their answers.
	plaintext := writeTOML(t, "[profile.default]\napi_key = \""+secret+"\"\n[profile.default.tls]\ndisabled = true\n")
	addr := harness.HostPort(t)
	for name, c := range map[string]struct {
		env  map[string]string
		args []string
	}{
		"FINALIZER_ variable": {map[string]string{"FINALIZER_TEMPORAL_API_KEY": secret}, nil},
		"TEMPORAL_ variable":  {map[string]string{"TEMPORAL_API_KEY": secret}, nil},
		"key file flag":       {nil, []string{"--temporal-api-key-file", keyFile}},
		"profile":             {profile, nil},
		"profile without TLS": {plaintext, nil},
	} {
		t.Run(name, func(t *testing.T) {
			env := map[string]string{envAddress: addr}
			for k, v := range c.env {
				env[k] = v
			}
			for _, cmd := range [][]string{
				{"latest", "--cluster", "c", "--job", "j"},
				{"list", "--stuck"},
				{"status", "--cluster", "c", "--job", "j", "--epoch", "1", "--checkpoint", "1"},
				{"claim", "--cluster", "c", "--job", "j", "--epoch", "1", "--owner", "o"},
			} {
				o := runTool(t, env, append(append([]string{"--timeout", "10s"}, c.args...), cmd...)...)
				assert.NotContains(t, o.stdout, secret, cmd)
				assert.NotContains(t, o.stderr, secret, cmd)
			}
		})
	}
}
