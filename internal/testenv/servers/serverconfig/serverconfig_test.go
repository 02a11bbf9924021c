package serverconfig

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

func example() Config {
	pg := SQL{Plugin: "postgres12", Database: "temporal", Addr: "127.0.0.1:5432", User: "temporal", Password: `p"a:ss #1`, MaxConns: 20}
	visibility := pg
	visibility.Database, visibility.MaxConns = "temporal_visibility", 10
	return Config{
		Header: "# Written by a test.", LogLevel: "info", HistoryShards: 4,
		Default: pg, Visibility: visibility,
		Ports:     PortsFrom([]int{7233, 6933, 7243, 7234, 6934, 7235, 6935, 7239, 6939}),
		PprofPort: 7936, DynamicConfigFile: "/tmp/a dir/dynamicconfig.yaml",
	}
}

// render renders c and reads the YAML back.
func render(t *testing.T, c Config) map[string]any {
	t.Helper()
	out, err := Render(c)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, yaml.UnmarshalStrict(out, &m), "%s", out)
	return m
}

// at is the value under a path of keys.
func at(t *testing.T, m map[string]any, keys ...string) any {
	t.Helper()
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		require.True(t, ok, "%v is not a map at %s", v, k)
		v, ok = mm[k]
		require.True(t, ok, "no %s in %v", k, keys)
	}
	return v
}

func TestRendersPlainPostgres(t *testing.T) {
	m := render(t, example())
	assert.Equal(t, "info", at(t, m, "log", "level"))
	assert.EqualValues(t, 4, at(t, m, "persistence", "numHistoryShards"))
	def := at(t, m, "persistence", "datastores", at(t, m, "persistence", "defaultStore").(string), "sql")
	assert.Equal(t, map[string]any{
		"pluginName": "postgres12", "databaseName": "temporal", "connectAddr": "127.0.0.1:5432", "connectProtocol": "tcp",
		"user": "temporal", "password": `p"a:ss #1`, "maxConns": float64(20), "maxIdleConns": float64(20), "maxConnLifetime": "1h",
	}, def, "a password with quotes, colon and hash reads back as it is")
	vis := at(t, m, "persistence", "datastores", at(t, m, "persistence", "visibilityStore").(string), "sql")
	assert.Equal(t, "temporal_visibility", at(t, vis.(map[string]any), "databaseName"))
	assert.EqualValues(t, 7936, at(t, m, "global", "pprof", "port"))
	assert.NotContains(t, at(t, m, "global").(map[string]any), "tls")
	assert.Equal(t, map[string]any{"grpcPort": float64(7233), "membershipPort": float64(6933), "bindOnLocalHost": true, "httpPort": float64(7243)},
		at(t, m, "services", "frontend", "rpc"))
	assert.EqualValues(t, 6939, at(t, m, "services", "worker", "rpc", "membershipPort"))
	assert.Equal(t, "127.0.0.1:7233", at(t, m, "clusterMetadata", "clusterInformation", "active", "rpcAddress"))
	assert.Equal(t, "/tmp/a dir/dynamicconfig.yaml", at(t, m, "dynamicConfigClient", "filepath"))
}

func TestRendersMTLSOnSQLite(t *testing.T) {
	c := example()
	c.Header, c.PprofPort = "", 0
	c.Default = SQL{Plugin: "sqlite", Database: "default", Addr: "localhost", Attributes: map[string]string{"mode": "memory", "cache": "private"}, MaxConns: 1}
	c.Visibility = c.Default
	c.TLS = &TLS{CAFile: "/pki/ca.pem", ServerName: "localhost", ServerCert: "/pki/server.pem", ServerKey: "/pki/server-key.pem",
		ClientCert: "/pki/client.pem", ClientKey: "/pki/client-key.pem"}
	m := render(t, c)
	def := at(t, m, "persistence", "datastores", at(t, m, "persistence", "defaultStore").(string), "sql").(map[string]any)
	assert.Equal(t, map[string]any{"mode": "memory", "cache": "private"}, def["connectAttributes"])
	assert.NotContains(t, def, "user")
	assert.NotContains(t, def, "password")
	assert.NotContains(t, at(t, m, "global").(map[string]any), "pprof")
	assert.Equal(t, map[string]any{
		"server": map[string]any{"certFile": "/pki/server.pem", "keyFile": "/pki/server-key.pem", "requireClientAuth": true,
			"clientCaFiles": []any{"/pki/ca.pem"}},
		"client": map[string]any{"serverName": "localhost", "rootCaFiles": []any{"/pki/ca.pem"}},
	}, at(t, m, "global", "tls", "frontend"))
	assert.Equal(t, map[string]any{"certFile": "/pki/client.pem", "keyFile": "/pki/client-key.pem",
		"client": map[string]any{"serverName": "localhost", "rootCaFiles": []any{"/pki/ca.pem"}}},
		at(t, m, "global", "tls", "systemWorker"))
}
