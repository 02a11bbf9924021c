package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// With -o json or yaml an error is one object on stderr, even one the
// parser refused before any command ran; stdout stays empty; exit codes
// are those of the text.
func TestStructuredErrors(t *testing.T) {
	t.Parallel()
	env := map[string]string{envAddress: "127.0.0.1:1"}
	for _, tc := range []struct {
		name   string
		args   []string
		decode func([]byte, any) error
	}{
		{"json, unknown flag", []string{"-o", "json", "list", "--stuck", "--since", "1m"}, json.Unmarshal},
		{"--json alias, after the command", []string{"list", "--json"}, json.Unmarshal},
		{"-ojson, kubectl's spelling", []string{"-ojson", "list"}, json.Unmarshal},
		{"-o=yaml", []string{"list", "-o=yaml"}, func(b []byte, v any) error { return yaml.Unmarshal(b, v) }},
		{"yaml, several problems", []string{"status", "--cluster", "c1", "--output=yaml", "--timeout", "5"}, func(b []byte, v any) error { return yaml.Unmarshal(b, v) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := runTool(t, env, tc.args...)
			assert.Equal(t, exitUsage, o.code)
			assert.Empty(t, o.stdout)
			var eo errorOutput
			require.NoError(t, tc.decode([]byte(o.stderr), &eo), "stderr holds one object")
			assert.Equal(t, "usage", eo.Kind)
			assert.Equal(t, exitUsage, eo.ExitCode)
			assert.NotEmpty(t, eo.Error)
			assert.NotContains(t, eo.Error, "finalizer: ", "the text's prefix is not the message")
		})
	}
}

func TestOutputFlagRefusals(t *testing.T) {
	t.Parallel()
	env := map[string]string{envAddress: "127.0.0.1:1"}
	o := runTool(t, env, "-o", "xml", "list", "--stuck")
	assert.Equal(t, exitUsage, o.code)
	assert.Contains(t, o.stderr, `finalizer: --output must be one of text, wide, json, yaml, got "xml"`)
	o = runTool(t, env, "--json", "-o", "yaml", "list", "--stuck")
	assert.Equal(t, exitUsage, o.code)
	assert.Contains(t, o.stderr, "--json is -o json: it contradicts --output yaml")
	assert.Contains(t, runTool(t, nil, "--help").stdout, "-o, --output")
}
