package worker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"text/template"
	"time"

	"github.com/compose-spec/compose-go/v2/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"sigs.k8s.io/yaml"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/devserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/freeport"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/serverbin"
	"github.com/checkpoint-finalizer/finalizer/tools/topology"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

// docker-compose.yml must run what scripts/topology.sh runs natively
// (tools/topology, whose end-to-end test is tools/topologytest):
// these tests compare the file with the topology's settings and run the
// file's Temporal side — its schema script, the server image's
// configuration rendered from its environment, its namespace and search
// attribute script — with the same binaries on a private PostgreSQL.

func composeEnv(t *testing.T, p *types.Project, svc string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, v := range p.Services[svc].Environment {
		require.NotNil(t, v, "%s: %s has no value in the file", svc, k)
		out[k] = *v
	}
	return out
}

// pairs parses "a=b c=d" (SCHEMAS, SEARCH_ATTRIBUTES) in order.
func pairs(t *testing.T, s string) [][2]string {
	t.Helper()
	var out [][2]string
	for _, f := range strings.Fields(s) {
		k, v, ok := strings.Cut(f, "=")
		require.True(t, ok, "%q is not name=value", f)
		out = append(out, [2]string{k, v})
	}
	return out
}

func envMap(kv []string) map[string]string {
	out := map[string]string{}
	for _, e := range kv {
		k, v, _ := strings.Cut(e, "=")
		out[k] = v
	}
	return out
}

// The file pins the server and Web UI versions the topology runs, sets the
// server up with the same schemas, store and history shards, creates the same
// namespace, and configures the worker exactly as the topology's workers
// are configured, apart from the addresses.
func TestComposeMatchesTopology(t *testing.T) {
	p := worker.LoadCompose(t)
	version := strings.TrimPrefix(topology.ServerVersion, "v")
	assert.Equal(t, "temporalio/server:"+version, p.Services[worker.SvcTemporal].Image)
	for _, svc := range []string{worker.SvcSchema, worker.SvcAttrs} {
		assert.True(t, strings.HasPrefix(p.Services[svc].Image, "temporalio/admin-tools:"+version+"-"),
			"%s: %s is not the admin-tools of server %s", svc, p.Services[svc].Image, version)
	}
	assert.Equal(t, "temporalio/ui:"+strings.TrimPrefix(topology.UIVersion, "v"), p.Services[worker.SvcUI].Image,
		"the Web UI the topology runs and the Web UI test reads")

	pgMajor := regexp.MustCompile(`/postgresql/(\d+)/`).FindStringSubmatch(topology.PostgresBin)
	require.NotNil(t, pgMajor, topology.PostgresBin)
	assert.True(t, strings.HasPrefix(p.Services[worker.SvcDB].Image, "postgres:"+pgMajor[1]+"."),
		"%s: not the PostgreSQL %s the topology runs", p.Services[worker.SvcDB].Image, pgMajor[1])

	schema := composeEnv(t, p, worker.SvcSchema)
	assert.Equal(t, topology.SQLPlugin, schema["SQL_PLUGIN"])
	assert.Equal(t, topology.PostgresUser, schema["SQL_USER"])
	assert.Equal(t, topology.PostgresPassword, schema["SQL_PASSWORD"])
	var want [][2]string
	for _, s := range topology.Schemas {
		want = append(want, [2]string{s.Database, s.Name})
	}
	assert.Equal(t, want, pairs(t, schema["SCHEMAS"]), "SCHEMAS: the default store, then visibility")

	server := composeEnv(t, p, worker.SvcTemporal)
	assert.Equal(t, topology.SQLPlugin, server["DB"])
	assert.Equal(t, topology.Schemas[0].Database, server["DBNAME"])
	assert.Equal(t, topology.Schemas[1].Database, server["VISIBILITY_DBNAME"])
	assert.Equal(t, "false", server["ENABLE_ES"], "SQL advanced visibility")
	assert.Equal(t, strconv.Itoa(topology.HistoryShards), server["NUM_HISTORY_SHARDS"])
	assert.Equal(t, "true", server["TEMPORAL_ALLOW_NO_AUTH"], "the topology starts the server with --allow-no-auth")

	attrs := composeEnv(t, p, worker.SvcAttrs)
	assert.Equal(t, topology.Namespace, attrs["TEMPORAL_NAMESPACE"])
	assert.Equal(t, topology.NamespaceRetention, attrs["NAMESPACE_RETENTION"])

	w := composeEnv(t, p, worker.SvcWorker)
	tp := &topology.Topology{
		Temporal:      topology.Temporal{Frontend: w["FINALIZER_TEMPORAL_ADDRESS"], Namespace: topology.Namespace},
		TaskQueue:     topology.TaskQueue,
		ZooKeeperRoot: topology.ZooKeeperRoot,
		Retain:        topology.DefaultRetain,
		Bucket:        strings.TrimPrefix(w["FINALIZER_STATE_BUCKET"], "file://"),
	}
	for _, addr := range strings.Split(w["FINALIZER_ZOOKEEPER_SERVERS"], ",") {
		tp.ZooKeeper = append(tp.ZooKeeper, topology.ZKNode{Addr: addr})
	}
	// Each native worker gets -metrics-address on the command line instead.
	delete(w, "FINALIZER_METRICS_ADDRESS")
	assert.Equal(t, envMap(tp.WorkerEnv()), w, "the compose worker's environment is the topology's, its addresses aside")
}

// temporalModule is go.temporal.io/server at the topology's version in the
// module cache: its docker/config_template.yaml and config/dynamicconfig/
// docker.yaml are the files the temporalio/server image of that version
// holds in /etc/temporal/config.
func temporalModule(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", "go.temporal.io/server@"+topology.ServerVersion)
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.Output()
	require.NoError(t, err, "go mod download go.temporal.io/server@%s", topology.ServerVersion)
	var m struct{ Dir, Error string }
	require.NoError(t, json.Unmarshal(out, &m))
	require.Empty(t, m.Error)
	return m.Dir
}

// renderServerConfig renders the image's config template with env as its
// entrypoint does (dockerize: Go templates, .Env, its default and sprig's
// string functions).
func renderServerConfig(t *testing.T, templatePath string, env map[string]string) []byte {
	t.Helper()
	b, err := os.ReadFile(templatePath)
	require.NoError(t, err)
	funcs := template.FuncMap{
		// dockerize's default: the value unless the variable is unset.
		"default": func(v any, def string) string {
			if s, ok := v.(string); ok {
				return s
			}
			return def
		},
		"lower": strings.ToLower,
		"split": strings.Split,
		"trim":  strings.TrimSpace,
	}
	tmpl, err := template.New(filepath.Base(templatePath)).Funcs(funcs).Parse(string(b))
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, tmpl.Execute(&out, struct{ Env map[string]string }{env}))
	return out.Bytes()
}

// runScript runs a one-shot service's script as its container would:
// its entrypoint and command, its environment with overrides.
func runScript(ctx context.Context, t *testing.T, svc types.ServiceConfig, path string, overrides map[string]string) string {
	t.Helper()
	require.Equal(t, []string{"/bin/sh", "-ec"}, []string(svc.Entrypoint))
	require.Len(t, svc.Command, 1)
	environ := append(os.Environ(), "PATH="+path+string(os.PathListSeparator)+os.Getenv("PATH"))
	for k, v := range svc.Environment {
		if o, ok := overrides[k]; ok {
			environ = append(environ, k+"="+o)
		} else {
			environ = append(environ, k+"="+*v)
		}
	}
	for k, v := range overrides {
		if _, ok := svc.Environment[k]; !ok {
			environ = append(environ, k+"="+v)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, svc.Entrypoint[0], append(svc.Entrypoint[1:], svc.Command[0])...)
	cmd.Env = environ
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s:\n%s", svc.Name, out)
	return string(out)
}

// The compose file's Temporal side, run natively: the schema script with
// the cached temporal-sql-tool runs exactly the topology's commands (and
// again, as a repeated `up` does), the server of the topology's version
// starts on those databases with the configuration its image renders from
// the file's environment, and the namespace and search attribute script
// leaves the namespace with its retention and every attribute queryable
// on SQL visibility.
func TestComposeTemporalRunsNatively(t *testing.T) {
	realserver.Require(t, "temporal-server and PostgreSQL")
	ctx := context.Background()
	p := worker.LoadCompose(t)
	bin, err := serverbin.Ensure(ctx, os.Stderr)
	require.NoError(t, err)
	cli, err := devserver.EnsureCLI(ctx, os.Stderr)
	require.NoError(t, err)

	dir := t.TempDir()
	// The postgres user reaches its cluster through these folders.
	require.NoError(t, os.Chmod(filepath.Dir(dir), 0o755))
	require.NoError(t, os.Chmod(dir, 0o755))
	pg, err := topology.StartPostgres(filepath.Join(dir, "postgres"))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, pg.Stop()) })

	// temporal-sql-tool, recording each invocation's arguments (one a
	// line, a blank line after each) before running the cached one.
	wrapDir := filepath.Join(dir, "wrap")
	require.NoError(t, os.Mkdir(wrapDir, 0o755))
	calls := filepath.Join(dir, "sql-tool-calls")
	wrapper := fmt.Sprintf("#!/bin/sh\n{ for a in \"$@\"; do printf '%%s\\n' \"$a\"; done; echo; } >>%q\nexec %q \"$@\"\n",
		calls, filepath.Join(bin, "temporal-sql-tool"))
	require.NoError(t, os.WriteFile(filepath.Join(wrapDir, "temporal-sql-tool"), []byte(wrapper), 0o755))

	sqlAt := map[string]string{"SQL_HOST": "127.0.0.1", "SQL_PORT": strconv.Itoa(pg.Port)}
	for run := 1; run <= 2; run++ {
		require.NoError(t, os.RemoveAll(calls))
		runScript(ctx, t, p.Services[worker.SvcSchema], wrapDir, sqlAt)
		b, err := os.ReadFile(calls)
		require.NoError(t, err)
		var got [][]string
		for _, call := range strings.Split(strings.TrimSuffix(string(b), "\n\n"), "\n\n") {
			got = append(got, strings.Split(call, "\n"))
		}
		assert.Equal(t, topology.SchemaCommands(pg), got, "run %d: the compose script runs the topology's temporal-sql-tool commands", run)
	}

	// The server, as the image starts it: config/docker.yaml rendered
	// from the template, `temporal-server --env docker start`, the
	// container's environment. Overridden: where PostgreSQL and the
	// server listen (loopback, free ports, not the container network) and
	// the dynamic config's path (the image's file, from the module).
	mod := temporalModule(t)
	ports, err := freeport.Low(9)
	require.NoError(t, err)
	frontend := fmt.Sprintf("127.0.0.1:%d", ports[0])
	root := filepath.Join(dir, "temporal")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "config", "dynamicconfig"), 0o755))
	dc, err := os.ReadFile(filepath.Join(mod, "config", "dynamicconfig", "docker.yaml"))
	require.NoError(t, err)
	dcPath := filepath.Join(root, "config", "dynamicconfig", "docker.yaml")
	require.NoError(t, os.WriteFile(dcPath, dc, 0o644))
	env := composeEnv(t, p, worker.SvcTemporal)
	for k, v := range map[string]string{
		"POSTGRES_SEEDS": "127.0.0.1", "DB_PORT": strconv.Itoa(pg.Port), "BIND_ON_IP": "127.0.0.1",
		"FRONTEND_GRPC_PORT": strconv.Itoa(ports[0]), "FRONTEND_MEMBERSHIP_PORT": strconv.Itoa(ports[1]),
		"FRONTEND_HTTP_PORT": strconv.Itoa(ports[2]), "HISTORY_GRPC_PORT": strconv.Itoa(ports[3]),
		"HISTORY_MEMBERSHIP_PORT": strconv.Itoa(ports[4]), "MATCHING_GRPC_PORT": strconv.Itoa(ports[5]),
		"MATCHING_MEMBERSHIP_PORT": strconv.Itoa(ports[6]), "WORKER_GRPC_PORT": strconv.Itoa(ports[7]),
		"WORKER_MEMBERSHIP_PORT": strconv.Itoa(ports[8]), "DYNAMIC_CONFIG_FILE_PATH": dcPath,
	} {
		env[k] = v
	}
	cfg := renderServerConfig(t, filepath.Join(mod, "docker", "config_template.yaml"), env)
	require.NoError(t, os.WriteFile(filepath.Join(root, "config", "docker.yaml"), cfg, 0o644))
	checkRenderedPersistence(t, cfg)

	logPath := filepath.Join(root, "temporal-server.log")
	cmd := exec.Command(filepath.Join(bin, "temporal-server"), "--root", root, "--env", "docker", "start")
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	server, err := proc.Start(cmd, proc.Options{Log: logPath})
	require.NoError(t, err)
	t.Cleanup(func() { _ = server.Kill() })

	// The compose healthcheck's own command decides when it serves.
	hc := []string(p.Services[worker.SvcTemporal].HealthCheck.Test)
	require.Equal(t, "CMD", hc[0])
	require.Equal(t, "temporal", hc[1])
	hcArgs := append([]string(nil), hc[2:]...)
	for i := range hcArgs {
		if i > 0 && hcArgs[i-1] == "--address" {
			hcArgs[i] = frontend
		}
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		out, err := exec.Command(cli, hcArgs...).CombinedOutput()
		if err == nil {
			break
		}
		if err := server.Exited(); err != nil {
			t.Fatalf("%v:\n%s", err, proc.Tail(logPath, 30))
		}
		require.True(t, time.Now().Before(deadline), "not healthy: %s\n%s", out, proc.Tail(logPath, 30))
		time.Sleep(time.Second)
	}

	cliPath := filepath.Dir(cli)
	// HOME: the CLI would otherwise read a developer's own profile.
	at := map[string]string{"TEMPORAL_ADDRESS": frontend, "HOME": t.TempDir()}
	first := runScript(ctx, t, p.Services[worker.SvcAttrs], cliPath, at)
	assert.NotContains(t, first, "namespace "+topology.Namespace+" present", "the server starts without a namespace")
	second := runScript(ctx, t, p.Services[worker.SvcAttrs], cliPath, at)
	assert.Contains(t, second, "namespace "+topology.Namespace+" present", "a repeated up keeps the namespace")

	c, err := client.Dial(client.Options{HostPort: frontend, Namespace: topology.Namespace,
		Logger: sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))})
	require.NoError(t, err)
	defer c.Close()
	ns, err := c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: topology.Namespace})
	require.NoError(t, err)
	retention, err := time.ParseDuration(topology.NamespaceRetention)
	require.NoError(t, err)
	assert.Equal(t, retention, ns.GetConfig().GetWorkflowExecutionRetentionTtl().AsDuration())
	sas, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: topology.Namespace})
	require.NoError(t, err)
	for name, typ := range contract.SearchAttributes() {
		assert.Equal(t, enumspb.IndexedValueType(enumspb.IndexedValueType_shorthandValue[typ]), sas.GetCustomAttributes()[name], name)
	}
	// The stuck-finalization filter is accepted by SQL visibility once
	// every service has refreshed its attributes (as the topology waits).
	deadline = time.Now().Add(time.Minute)
	for {
		_, err = c.WorkflowService().ListWorkflowExecutions(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: topology.Namespace, PageSize: 1,
			Query: `FinalizationPhase = "Verifying" AND PhaseSince < "2000-01-01T00:00:00Z"`,
		})
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	assert.NoError(t, err)

	checkComposeUI(t, p, frontend, filepath.Join(dir, "ui"))
}

// checkComposeUI runs the compose file's Web UI natively as its image
// runs it: the cached UI server of the topology's version, `--env docker
// start` on the image's config/docker.yaml (a template the server renders
// from its environment), the container's environment. Overridden: the
// frontend's address and the UI's port (loopback, not the container
// network), both through the variables the file sets, so that a variable
// the image does not read leaves the UI on its defaults and fails here.
// The UI must pass the file's healthcheck path and serve the namespace
// from the frontend.
func checkComposeUI(t *testing.T, p *types.Project, frontend, root string) {
	t.Helper()
	bin, err := serverbin.EnsureUI(context.Background(), os.Stderr)
	require.NoError(t, err)
	tmpl, err := topology.UIImageConfig()
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "config"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "config", "docker.yaml"), tmpl, 0o644))

	env := composeEnv(t, p, worker.SvcUI)
	require.Contains(t, env, "TEMPORAL_ADDRESS")
	require.Contains(t, env, "TEMPORAL_UI_PORT")
	port, err := freeport.Low(1)
	require.NoError(t, err)
	env["TEMPORAL_ADDRESS"], env["TEMPORAL_UI_PORT"] = frontend, strconv.Itoa(port[0])
	logPath := filepath.Join(root, "ui-server.log")
	cmd := exec.Command(filepath.Join(bin, serverbin.UIServer), "--root", root, "--env", "docker", "start")
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	ui, err := proc.Start(cmd, proc.Options{Name: "the UI server", Log: logPath})
	require.NoError(t, err)
	defer func() { _ = ui.Kill() }()

	hc := strings.Join(p.Services[worker.SvcUI].HealthCheck.Test, " ")
	healthz := regexp.MustCompile(`http://[^/ ]+(/\S*)`).FindStringSubmatch(hc)
	require.NotNil(t, healthz, "the healthcheck's URL: %s", hc)
	base := fmt.Sprintf("http://127.0.0.1:%d", port[0])
	for _, path := range []string{healthz[1], "/api/v1/namespaces/" + topology.Namespace} {
		deadline := time.Now().Add(time.Minute)
		for {
			resp, err := http.Get(base + path)
			if err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
				err = fmt.Errorf("%s: %s", resp.Status, b)
			}
			if err := ui.Exited(); err != nil {
				t.Fatalf("%v:\n%s", err, proc.Tail(logPath, 30))
			}
			require.True(t, time.Now().Before(deadline), "GET %s: %v\n%s", path, err, proc.Tail(logPath, 30))
			time.Sleep(250 * time.Millisecond)
		}
	}
}

// checkRenderedPersistence: the rendered configuration stores on the
// topology's plugin and databases, with its history shard count.
func checkRenderedPersistence(t *testing.T, cfg []byte) {
	t.Helper()
	var c struct {
		Persistence struct {
			NumHistoryShards int    `json:"numHistoryShards"`
			DefaultStore     string `json:"defaultStore"`
			VisibilityStore  string `json:"visibilityStore"`
			Datastores       map[string]struct {
				SQL *struct {
					PluginName   string `json:"pluginName"`
					DatabaseName string `json:"databaseName"`
					User         string `json:"user"`
				} `json:"sql"`
			} `json:"datastores"`
		} `json:"persistence"`
	}
	require.NoError(t, yaml.Unmarshal(cfg, &c), "%s", cfg)
	ps := c.Persistence
	assert.Equal(t, topology.HistoryShards, ps.NumHistoryShards)
	for store, db := range map[string]string{ps.DefaultStore: topology.Schemas[0].Database, ps.VisibilityStore: topology.Schemas[1].Database} {
		sql := ps.Datastores[store].SQL
		if assert.NotNil(t, sql, "store %s is not SQL", store) {
			assert.Equal(t, topology.SQLPlugin, sql.PluginName, store)
			assert.Equal(t, db, sql.DatabaseName, store)
			assert.Equal(t, topology.PostgresUser, sql.User, store)
		}
	}
}
