package worker

import (
	"context"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/checkpoint-finalizer/finalizer/stores/zookeeper"
)

// MetricStoreUp is 1 while the HA reference store can serve calls (a
// ZooKeeper session, the Kubernetes API server answering; the embedded
// store always), else 0, including while the worker is still opening it.
// It is the readiness check's store probe, asked on each scrape: the
// finalizations' own store calls are not touched.
const MetricStoreUp = "finalizer_store_up"

// MetricZooKeeperSession is the ZooKeeper client's session state, one
// series per state (zookeeper.SessionStates) with 1 on the current one,
// read from the client's memory on each scrape.
const MetricZooKeeperSession = "finalizer_zookeeper_session_state"

// storeUp collects MetricStoreUp and, on ZooKeeper, MetricZooKeeperSession.
type storeUp struct {
	kind    string
	up      *prometheus.Desc
	session *prometheus.Desc
	store   atomic.Pointer[referenceStore] // nil until opened
}

func newStoreUp(kind StoreKind) *storeUp {
	labels := prometheus.Labels{"store": string(kind)}
	return &storeUp{
		kind: string(kind),
		up: prometheus.NewDesc(MetricStoreUp,
			"1 while the HA reference store can serve calls (ZooKeeper: a session; Kubernetes: the API server answers), else 0.",
			nil, labels),
		session: prometheus.NewDesc(MetricZooKeeperSession,
			"The ZooKeeper client's session state: 1 on the current state, 0 on the others.",
			[]string{"state"}, labels),
	}
}

// opened starts probing s on each scrape.
func (u *storeUp) opened(s referenceStore) { u.store.Store(&s) }

func (u *storeUp) Describe(ch chan<- *prometheus.Desc) {
	ch <- u.up
	if u.kind == string(StoreZooKeeper) {
		ch <- u.session
	}
}

func (u *storeUp) Collect(ch chan<- prometheus.Metric) {
	s := u.store.Load()
	up := 0.0
	if s != nil {
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		defer cancel()
		if (*s).Probe(ctx) == nil {
			up = 1
		}
	}
	ch <- prometheus.MustNewConstMetric(u.up, prometheus.GaugeValue, up)
	if s == nil {
		return
	}
	if zs, ok := (*s).(*zookeeper.Store); ok {
		current := zs.SessionState()
		for _, state := range zookeeper.SessionStates() {
			v := 0.0
			if state == current {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(u.session, prometheus.GaugeValue, v, state)
		}
	}
}
