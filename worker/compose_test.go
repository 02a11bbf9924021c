package worker

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// No Docker engine runs here, so docker-compose.yml is checked by parsing
// it with the reference loader and cross-checking it against the code.

const (
	svcTemporal = "temporal"
	svcSchema   = "temporal-schema"
	svcUI       = "temporal-ui"
	svcAttrs    = "temporal-search-attributes"
	svcZK       = "zookeeper"
	svcDB       = "postgresql"
	svcWorker   = "worker"
)

func loadCompose(t *testing.T) *types.Project {
	t.Helper()
	// No OS environment and no .env: the file must be complete by itself.
	opts, err := cli.NewProjectOptions([]string{filepath.Join("..", "docker-compose.yml")},
		cli.WithWorkingDirectory(".."), cli.WithEnv(nil))
	require.NoError(t, err)
	p, err := opts.LoadProject(context.Background())
	require.NoError(t, err)
	for _, name := range []string{svcTemporal, svcSchema, svcUI, svcAttrs, svcZK, svcDB, svcWorker} {
		require.Contains(t, p.Services, name)
	}
	return p
}

func TestComposeImagesPinned(t *testing.T) {
	p := loadCompose(t)
	for name, s := range p.Services {
		if s.Build != nil {
			assert.Equal(t, "Dockerfile", s.Build.Dockerfile, name)
			continue
		}
		assert.NoError(t, checkPinned(s.Image), "service %s", name)
	}
	for _, from := range dockerfileFroms(t) {
		assert.NoError(t, checkPinned(from), "Dockerfile FROM")
	}
}

// checkPinned wants a tag (not latest) or a digest.
func checkPinned(image string) error {
	if strings.Contains(image, "@sha256:") {
		return nil
	}
	name := image[strings.LastIndex(image, "/")+1:]
	_, tag, ok := strings.Cut(name, ":")
	switch {
	case !ok || tag == "":
		return fmt.Errorf("image %q has no tag", image)
	case tag == "latest":
		return fmt.Errorf("image %q is :latest", image)
	}
	return nil
}

// Every long-running service has a healthcheck, and every dependency
// waits for a condition that exists.
func TestComposeHealthchecksAndDependencies(t *testing.T) {
	p := loadCompose(t)
	for name, s := range p.Services {
		oneShot := s.Restart == "no"
		if !oneShot {
			if assert.NotNil(t, s.HealthCheck, "service %s has no healthcheck", name) {
				assert.False(t, s.HealthCheck.Disable, name)
				assert.NotEmpty(t, s.HealthCheck.Test, name)
			}
		}
		for dep, d := range s.DependsOn {
			target, ok := p.Services[dep]
			require.True(t, ok, "%s depends on unknown %s", name, dep)
			switch d.Condition {
			case types.ServiceConditionHealthy:
				assert.NotNil(t, target.HealthCheck, "%s waits for %s to be healthy, which has no healthcheck", name, dep)
			case types.ServiceConditionCompletedSuccessfully:
				assert.Equal(t, "no", target.Restart, "%s waits for %s to complete, which restarts", name, dep)
			default:
				t.Errorf("%s depends on %s with condition %q: want healthy or completed", name, dep, d.Condition)
			}
		}
	}
	w := p.Services[svcWorker]
	for _, dep := range []string{svcTemporal, svcAttrs, svcZK} {
		assert.Contains(t, w.DependsOn, dep, "the worker starts after %s", dep)
	}
	// The server starts on migrated databases; the schema waits for PostgreSQL.
	assert.Equal(t, types.ServiceConditionCompletedSuccessfully, p.Services[svcTemporal].DependsOn[svcSchema].Condition)
	assert.Equal(t, types.ServiceConditionHealthy, p.Services[svcSchema].DependsOn[svcDB].Condition)
	// The worker's healthcheck runs the binary the Dockerfile installs.
	assert.Equal(t, "/usr/local/bin/finalizer-worker", w.HealthCheck.Test[1])
	assert.Equal(t, "healthcheck", w.HealthCheck.Test[2])
}

// Every address one service uses for another names that service and a
// port it serves on.
func TestComposeAddressesLineUp(t *testing.T) {
	p := loadCompose(t)
	env := func(svc, key string) string {
		v := p.Services[svc].Environment[key]
		require.NotNil(t, v, "%s has no %s", svc, key)
		return *v
	}
	points := func(addr, svc string) {
		t.Helper()
		host, port, err := net.SplitHostPort(addr)
		require.NoError(t, err, addr)
		assert.Equal(t, svc, host, "%s should point at service %s", addr, svc)
		assert.Contains(t, containerPorts(p.Services[svc]), port, "%s: service %s does not serve port %s", addr, svc, port)
	}
	points(env(svcWorker, "FINALIZER_TEMPORAL_ADDRESS"), svcTemporal)
	servers := strings.Split(env(svcWorker, "FINALIZER_ZOOKEEPER_SERVERS"), ",")
	require.NotEmpty(t, servers)
	for _, s := range servers {
		points(strings.TrimSpace(s), svcZK)
	}
	points(env(svcUI, "TEMPORAL_ADDRESS"), svcTemporal)
	points(env(svcAttrs, "TEMPORAL_ADDRESS"), svcTemporal)
	points(env(svcTemporal, "POSTGRES_SEEDS")+":"+env(svcTemporal, "DB_PORT"), svcDB)
	points(net.JoinHostPort(env(svcSchema, "SQL_HOST"), env(svcSchema, "SQL_PORT")), svcDB)
	// The schema service migrates the databases the server uses, as the
	// user PostgreSQL creates.
	assert.Equal(t, env(svcTemporal, "POSTGRES_USER"), env(svcSchema, "SQL_USER"))
	assert.Equal(t, env(svcTemporal, "POSTGRES_PWD"), env(svcSchema, "SQL_PASSWORD"))
	assert.Equal(t, env(svcDB, "POSTGRES_USER"), env(svcSchema, "SQL_USER"))
	assert.Equal(t, env(svcDB, "POSTGRES_PASSWORD"), env(svcSchema, "SQL_PASSWORD"))
	assert.Equal(t, env(svcTemporal, "DB"), env(svcSchema, "SQL_PLUGIN"))
	assert.Contains(t, containerPorts(p.Services[svcUI]), env(svcUI, "TEMPORAL_UI_PORT"))
	_, metricsPort, err := net.SplitHostPort(env(svcWorker, "FINALIZER_METRICS_ADDRESS"))
	require.NoError(t, err)
	assert.Contains(t, containerPorts(p.Services[svcWorker]), metricsPort)

	hc := strings.Join(p.Services[svcTemporal].HealthCheck.Test, " ")
	assert.Contains(t, hc, "--address "+env(svcWorker, "FINALIZER_TEMPORAL_ADDRESS"))
	assert.Equal(t, env(svcWorker, "FINALIZER_TEMPORAL_NAMESPACE"), env(svcAttrs, "TEMPORAL_NAMESPACE"),
		"search attributes are registered in the worker's namespace")

	// Published ports stay on loopback.
	for name, s := range p.Services {
		for _, port := range s.Ports {
			assert.Equal(t, "127.0.0.1", port.HostIP, "%s publishes %d beyond loopback", name, port.Target)
		}
	}
}

// containerPorts lists the ports a service serves on its network.
func containerPorts(s types.ServiceConfig) []string {
	out := slices.Clone([]string(s.Expose))
	for _, p := range s.Ports {
		out = append(out, strconv.Itoa(int(p.Target)))
	}
	return out
}

// The worker's environment is a valid configuration for this package, on
// ZooKeeper and a bucket inside its volume, and it drains before SIGKILL.
func TestComposeWorkerConfiguration(t *testing.T) {
	p := loadCompose(t)
	w := p.Services[svcWorker]
	vars := map[string]string{}
	for k, v := range w.Environment {
		require.NotNil(t, v, "%s has no value in the file", k)
		vars[k] = *v
	}
	cfg, err := LoadConfig(nil, env(vars))
	require.NoError(t, err)
	require.NoError(t, cfg.Validate())
	assert.Equal(t, StoreZooKeeper, cfg.Store.Kind)
	assert.Equal(t, contract.DefaultTaskQueue, cfg.Temporal.TaskQueue)

	require.True(t, strings.HasPrefix(cfg.StateBucket, "file:///"), cfg.StateBucket)
	bucketDir := strings.TrimPrefix(cfg.StateBucket, "file://")
	mounted := false
	for _, v := range w.Volumes {
		if v.Type == types.VolumeTypeVolume && strings.HasPrefix(bucketDir+"/", strings.TrimSuffix(v.Target, "/")+"/") {
			mounted = true
			assert.Contains(t, p.Volumes, v.Source, "a named volume")
		}
	}
	assert.True(t, mounted, "the state bucket %s is on a volume", bucketDir)

	require.NotNil(t, w.StopGracePeriod)
	assert.Greater(t, time.Duration(*w.StopGracePeriod), cfg.ShutdownGrace, "Docker must not SIGKILL during the drain")
}

// The one-shot service registers exactly contract.SearchAttributes().
func TestComposeSearchAttributes(t *testing.T) {
	p := loadCompose(t)
	assert.Equal(t, contract.SearchAttributes(), composeSearchAttributes(t, p))
}

func composeSearchAttributes(t *testing.T, p *types.Project) map[string]string {
	t.Helper()
	v := p.Services[svcAttrs].Environment["SEARCH_ATTRIBUTES"]
	require.NotNil(t, v)
	got := map[string]string{}
	for _, pair := range strings.Fields(*v) {
		name, typ, ok := strings.Cut(pair, "=")
		require.True(t, ok, "%q is not name=Type", pair)
		got[name] = typ
	}
	return got
}

// The Dockerfile builds the worker command, runs it as non-root and
// installs it where the compose healthcheck calls it.
func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "Dockerfile"))
	require.NoError(t, err)
	df := string(b)
	assert.Contains(t, df, "./worker/cmd/finalizer-worker")
	assert.Contains(t, df, "./client/cmd/finalizer", "operators exec into the container to run the CLI")
	assert.Regexp(t, regexp.MustCompile(`(?m)^USER (65532|nonroot)`), df)
	assert.Contains(t, df, `ENTRYPOINT ["/usr/local/bin/finalizer-worker"]`)
	assert.Len(t, dockerfileFroms(t), 2, "multi-stage: build and runtime")
}

func dockerfileFroms(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "Dockerfile"))
	require.NoError(t, err)
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^FROM\s+(\S+)`).FindAllStringSubmatch(string(b), -1) {
		out = append(out, m[1])
	}
	return out
}
