package devserver_test

import (
	"bufio"
	"context"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/devserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/temporaltest"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
)

// finalizerAttributes are the search attributes the finalization workflows
// upsert.
var finalizerAttributes = map[string]string{
	"FinalizationPhase": "Keyword",
	"CheckpointEpoch":   "Int",
	"PhaseSince":        "Datetime",
}

func TestStartServesHealthSearchAttributesAndUI(t *testing.T) {
	begin := time.Now()
	s := temporaltest.Start(t, devserver.Options{UI: true, SearchAttributes: finalizerAttributes})
	t.Logf("server ready in %s, RSS %d MiB", time.Since(begin).Round(time.Millisecond), rssMiB(t, s.PID()))

	c := dial(t, s)
	_, err := c.CheckHealth(context.Background(), &client.CheckHealthRequest{})
	require.NoError(t, err)

	resp, err := c.OperatorService().ListSearchAttributes(context.Background(),
		&operatorservice.ListSearchAttributesRequest{Namespace: s.Namespace})
	require.NoError(t, err)
	assert.Equal(t, enumspb.INDEXED_VALUE_TYPE_KEYWORD, resp.GetCustomAttributes()["FinalizationPhase"])
	assert.Equal(t, enumspb.INDEXED_VALUE_TYPE_INT, resp.GetCustomAttributes()["CheckpointEpoch"])
	assert.Equal(t, enumspb.INDEXED_VALUE_TYPE_DATETIME, resp.GetCustomAttributes()["PhaseSince"])

	require.NotEmpty(t, s.UIAddress)
	ui, err := http.Get(s.UIAddress)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, ui.Body)
	ui.Body.Close()
	assert.Equal(t, http.StatusOK, ui.StatusCode)
}

func TestKillThenRestart(t *testing.T) {
	s := temporaltest.Start(t, devserver.Options{})
	pid := s.PID()
	require.NotZero(t, pid)

	require.NoError(t, s.Kill())
	assert.Zero(t, s.PID())
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	assert.True(t, os.IsNotExist(err), "process %d still exists", pid)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err = client.DialContext(ctx, client.Options{HostPort: s.HostPort, Logger: devserver.QuietLogger()})
	assert.Error(t, err, "a killed server still answers")

	begin := time.Now()
	require.NoError(t, s.Restart(context.Background()))
	t.Logf("restart after kill ready in %s", time.Since(begin).Round(time.Millisecond))
	_, err = dial(t, s).CheckHealth(context.Background(), &client.CheckHealthRequest{})
	require.NoError(t, err)
}

// A database written before a search attribute existed gets it on the next
// start: the dev server registers them only when it creates the database.
func TestNewSearchAttributeOnExistingDatabase(t *testing.T) {
	db := filepath.Join(t.TempDir(), "temporal.db")
	first := temporaltest.Start(t, devserver.Options{DBFile: db, SearchAttributes: map[string]string{"FinalizationPhase": "Keyword"}})
	require.NoError(t, first.Stop())

	second := temporaltest.Start(t, devserver.Options{DBFile: db, SearchAttributes: finalizerAttributes})
	resp, err := dial(t, second).OperatorService().ListSearchAttributes(context.Background(),
		&operatorservice.ListSearchAttributesRequest{Namespace: second.Namespace})
	require.NoError(t, err)
	for name := range finalizerAttributes {
		assert.Contains(t, resp.GetCustomAttributes(), name)
	}

	// A type clash is reported, not papered over.
	require.NoError(t, second.Stop())
	_, err = devserver.StartServer(context.Background(), devserver.Options{
		DBFile:           db,
		LogDir:           t.TempDir(),
		SearchAttributes: map[string]string{"CheckpointEpoch": "Keyword"},
	})
	assert.ErrorContains(t, err, "registered as Int")
}

func dial(t *testing.T, s *devserver.Server) client.Client {
	t.Helper()
	c, err := client.Dial(client.Options{HostPort: s.HostPort, Namespace: s.Namespace, Logger: devserver.QuietLogger()})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// rssMiB reads VmRSS of a process.
func rssMiB(t *testing.T, pid int) int {
	t.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			require.NoError(t, err)
			return kb / 1024
		}
	}
	t.Fatalf("no VmRSS for pid %d", pid)
	return 0
}
