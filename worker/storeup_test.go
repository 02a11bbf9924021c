package worker

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/zktest"
	"github.com/checkpoint-finalizer/finalizer/stores/embedded"
)

// Until the worker has opened its store, the store is down; the embedded
// store, once open, is always up.
func TestStoreUpBeforeAndAfterOpen(t *testing.T) {
	u := newStoreUp(StoreEmbedded)
	reg := prometheus.NewRegistry()
	require.NoError(t, reg.Register(u))
	assert.Equal(t, 0.0, testutil.ToFloat64(u), "not open yet")

	s, err := embedded.Open(filepath.Join(t.TempDir(), "refs.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	u.opened(s)
	assert.Equal(t, 1.0, testutil.ToFloat64(u))
}

// finalizer_store_up and the ZooKeeper session state follow a real
// ensemble, as a scrape of a real worker's /metrics sees them: up with a
// session, down while the server is stopped, up again after its restart.
func TestStoreUpFollowsZooKeeper(t *testing.T) {
	d, zk := newZooKeeperWorker(t)
	r, _ := d.start()

	// waitStore polls /metrics until the store's series read up and the
	// session state named has 1.
	waitStore := func(up, session string) {
		t.Helper()
		var last string
		require.Eventually(t, func() bool {
			last = get(t, "http://"+r.MetricsAddress+"/metrics", 200)
			return equal(samples(last, MetricStoreUp, `store="zookeeper"`), up) &&
				equal(samples(last, MetricZooKeeperSession, `state="`+session+`"`, `store="zookeeper"`), "1")
		}, time.Minute, 100*time.Millisecond, "want %s=%s, session %s; last scrape:\n%s", MetricStoreUp, up, session, grep(last, "finalizer_"))
	}
	waitStore("1", "has_session")

	zk.Stop()
	// connecting or disconnected, whichever the scrape catches: not a
	// session.
	var last string
	require.Eventually(t, func() bool {
		last = get(t, "http://"+r.MetricsAddress+"/metrics", 200)
		return equal(samples(last, MetricStoreUp, `store="zookeeper"`), "0") &&
			equal(samples(last, MetricZooKeeperSession, `state="has_session"`), "0")
	}, time.Minute, 100*time.Millisecond, "store down while ZooKeeper is stopped; last scrape:\n%s", grep(last, "finalizer_"))
	states := 0
	for _, v := range samples(last, MetricZooKeeperSession) {
		if v == "1" {
			states++
		}
	}
	assert.Equal(t, 1, states, "exactly one current session state")

	require.NoError(t, zk.Restart())
	waitStore("1", "has_session")
}

// newZooKeeperWorker is a dev worker on a real ZooKeeper server of its
// own, with a session that outlives the server's restarts.
func newZooKeeperWorker(t *testing.T) (*devWorker, *zktest.Server) {
	t.Helper()
	zk := zktest.Start(t)
	d := newDevWorker(t)
	d.cfg.Store.Kind = StoreZooKeeper
	d.cfg.Store.ZooKeeper.Servers = []string{zk.Addr}
	d.cfg.Store.ZooKeeper.SessionTimeout = 30 * time.Second
	return d, zk
}

// equal: the samples are exactly one, with value want.
func equal(got []string, want string) bool { return len(got) == 1 && got[0] == want }

// grep keeps the exposition's lines that contain s, for failure messages.
func grep(exposition, s string) string {
	var out []string
	for _, line := range strings.Split(exposition, "\n") {
		if strings.Contains(line, s) && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
