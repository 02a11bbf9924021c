// Package serverconfig writes the configuration file of Temporal's own
// server (temporal-server, as package serverbin builds it): every service
// in one process, on loopback, on SQL persistence, optionally with mTLS on
// the frontend. The production topology and the mTLS test server both run
// the server this way; only their persistence, ports and TLS differ.
package serverconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"text/template"
)

// Config is what differs between the servers run from this file.
type Config struct {
	// Header opens the file: comment lines (each starting with #) saying
	// who wrote it; may be empty.
	Header string
	// LogLevel is the server's: debug, info, warn or error.
	LogLevel string
	// HistoryShards is fixed when the cluster's database is created.
	HistoryShards int
	// Default and Visibility are the default store and the (SQL advanced)
	// visibility store.
	Default, Visibility SQL
	Ports               Ports
	// PprofPort serves the server's Go profiles on 127.0.0.1; 0: off.
	PprofPort int
	// TLS, when set, makes the frontend require client certificates.
	TLS *TLS
	// DynamicConfigFile is the dynamic configuration's path.
	DynamicConfigFile string
}

// SQL is one datastore of a SQL plugin (postgres12, sqlite, ...).
type SQL struct {
	Plugin   string
	Database string
	// Addr is host:port for a server, a placeholder for sqlite.
	Addr     string
	User     string
	Password string
	// Attributes are the plugin's connectAttributes (sqlite: mode, cache).
	Attributes map[string]string
	// MaxConns bounds the pool's connections, idle ones included.
	MaxConns int
}

// Ports are the gRPC and membership ports of the four services and the
// frontend's HTTP port, all on 127.0.0.1.
type Ports struct {
	Frontend, FrontendMembership, FrontendHTTP int
	History, HistoryMembership                 int
	Matching, MatchingMembership               int
	Worker, WorkerMembership                   int
}

// PortsFrom assigns the first nine of ports in the order of Ports' fields.
func PortsFrom(ports []int) Ports {
	return Ports{
		Frontend: ports[0], FrontendMembership: ports[1], FrontendHTTP: ports[2],
		History: ports[3], HistoryMembership: ports[4],
		Matching: ports[5], MatchingMembership: ports[6],
		Worker: ports[7], WorkerMembership: ports[8],
	}
}

// TLS is the frontend's mTLS: the server's certificate, the CA its clients'
// certificates (and its own) are signed by, and the client certificate the
// system worker dials the frontend with.
type TLS struct {
	CAFile                string
	ServerName            string
	ServerCert, ServerKey string
	ClientCert, ClientKey string
}

// Render returns the configuration file's YAML.
func Render(c Config) ([]byte, error) {
	var out bytes.Buffer
	if err := tmpl.Execute(&out, c); err != nil {
		return nil, fmt.Errorf("render temporal-server config: %w", err)
	}
	return out.Bytes(), nil
}

// quote writes a string as a JSON string, which YAML reads as the same
// string whatever it holds.
func quote(s string) (string, error) {
	b, err := json.Marshal(s)
	return string(b), err
}

var tmpl = template.Must(template.New("temporal-server").Funcs(template.FuncMap{"q": quote}).Parse(text))

// text is the server's development-postgres12.yaml and
// development-sqlite.yaml, without archival, with our settings.
const text = `{{with .Header}}{{.}}
{{end}}log:
  stdout: true
  level: {{q .LogLevel}}

persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: {{.HistoryShards}}
  datastores:
    default:
{{template "sql" .Default}}
    visibility:
{{template "sql" .Visibility}}

global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"
{{- if .PprofPort}}
  pprof:
    host: "127.0.0.1"
    port: {{.PprofPort}}
{{- end}}
{{- with .TLS}}
  tls:
    frontend:
      server:
        certFile: {{q .ServerCert}}
        keyFile: {{q .ServerKey}}
        requireClientAuth: true
        clientCaFiles: [{{q .CAFile}}]
      client:
        serverName: {{q .ServerName}}
        rootCaFiles: [{{q .CAFile}}]
    systemWorker:
      certFile: {{q .ClientCert}}
      keyFile: {{q .ClientKey}}
      client:
        serverName: {{q .ServerName}}
        rootCaFiles: [{{q .CAFile}}]
{{- end}}

services:
{{- with .Ports}}
  frontend:
    rpc: {grpcPort: {{.Frontend}}, membershipPort: {{.FrontendMembership}}, bindOnLocalHost: true, httpPort: {{.FrontendHTTP}}}
  history:
    rpc: {grpcPort: {{.History}}, membershipPort: {{.HistoryMembership}}, bindOnLocalHost: true}
  matching:
    rpc: {grpcPort: {{.Matching}}, membershipPort: {{.MatchingMembership}}, bindOnLocalHost: true}
  worker:
    rpc: {grpcPort: {{.Worker}}, membershipPort: {{.WorkerMembership}}, bindOnLocalHost: true}
{{- end}}

clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: "active"
  currentClusterName: "active"
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: "frontend"
      rpcAddress: "127.0.0.1:{{.Ports.Frontend}}"

dcRedirectionPolicy:
  policy: "noop"

dynamicConfigClient:
  filepath: {{q .DynamicConfigFile}}
  pollInterval: "10s"
{{define "sql"}}      sql:
        pluginName: {{q .Plugin}}
        databaseName: {{q .Database}}
        connectAddr: {{q .Addr}}
        connectProtocol: "tcp"
{{- with .User}}
        user: {{q .}}
{{- end}}
{{- with .Password}}
        password: {{q .}}
{{- end}}
{{- with .Attributes}}
        connectAttributes:
{{- range $k, $v := .}}
          {{q $k}}: {{q $v}}
{{- end}}
{{- end}}
        maxConns: {{.MaxConns}}
        maxIdleConns: {{.MaxConns}}
        maxConnLifetime: "1h"
{{- end}}`
