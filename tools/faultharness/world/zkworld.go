package world

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/zkfault"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/zktest"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/zookeeper"
)

// zkRoot is the store's root in the ensemble; a run has the ensemble to itself.
const zkRoot = "/faultharness"

// zkWorld is the ZooKeeper side of a run: a 3-node ensemble, each node
// behind a byte proxy (latency, resets) in front of a frame-aware proxy
// (dropped writes, partitions). Workers go through the proxies; the
// harness's own checker goes straight to the nodes, so that no fault ever
// blinds the check.
type zkWorld struct {
	ensemble *zktest.Ensemble
	frames   []*zkfault.Proxy
	bytes    []*netProxy
	// checker is the store as the harness reads it; raw reads znode stats.
	store   *zookeeper.Store
	raw     *zk.Conn
	session time.Duration
	// workers is how many worker processes hold a session.
	workers int
}

var _ backend = (*zkWorld)(nil)

func startZK(ctx context.Context, log *slog.Logger, session time.Duration, workers int) (*zkWorld, error) {
	ens, err := zktest.StartEnsemble(3)
	if err != nil {
		return nil, err
	}
	w := &zkWorld{ensemble: ens, session: session, workers: workers}
	for _, n := range ens.Nodes {
		fp, err := zkfault.Start(n.Addr)
		if err != nil {
			w.close(true)
			return nil, fmt.Errorf("fault proxy for zookeeper node %d: %w", n.ID, err)
		}
		w.frames = append(w.frames, fp)
		bp, err := startNetProxy(fp.Addr)
		if err != nil {
			w.close(true)
			return nil, err
		}
		w.bytes = append(w.bytes, bp)
	}
	w.store, err = zookeeper.Open(ctx, zookeeper.Config{
		Servers: ens.Servers(), Root: zkRoot, SessionTimeout: 30 * time.Second,
	}, log.With("component", "checker"))
	if err != nil {
		w.close(true)
		return nil, fmt.Errorf("open the checker's zookeeper store: %w", err)
	}
	w.raw, _, err = zk.Connect(ens.Servers(), 30*time.Second, zk.WithLogger(quietZK{}))
	if err != nil {
		w.close(true)
		return nil, fmt.Errorf("connect the checker to zookeeper: %w", err)
	}
	return w, nil
}

// workerArgs point the workers at the outer proxies.
func (w *zkWorld) workerArgs() []string {
	addrs := make([]string, len(w.bytes))
	for i, p := range w.bytes {
		addrs[i] = p.Addr
	}
	return []string{"-store=zookeeper", "-zookeeper-servers=" + strings.Join(addrs, ","),
		"-zookeeper-root=" + zkRoot, "-zookeeper-session-timeout=" + w.session.String()}
}

func (w *zkWorld) checker() stores.ReferenceStore { return w.store }

// keyVersion identifies the exact write a checkpoint's znode holds: its
// version and the transaction that last changed it. A replay that "changes
// nothing" must leave it as it was, even a rewrite of the same bytes.
func (w *zkWorld) keyVersion(_ context.Context, id stores.CheckpointID) (string, error) {
	path := fmt.Sprintf("%s/%s/checkpoints/%s/%019d", zkRoot, id.Cluster, id.Job, id.Checkpoint)
	// sync first: the node answering must have caught up with the leader.
	if _, err := w.raw.Sync(zkRoot); err != nil {
		return "", fmt.Errorf("sync %s: %w", zkRoot, err)
	}
	ok, st, err := w.raw.Exists(path)
	if err != nil {
		return "", fmt.Errorf("stat %s: %w", path, err)
	}
	if !ok {
		return "absent", nil
	}
	return fmt.Sprintf("version %d mzxid %d", st.Version, st.Mzxid), nil
}

// heal ends every proxy fault and starts every stopped node.
func (w *zkWorld) heal(context.Context) error {
	for i := range w.frames {
		w.frames[i].Heal()
		w.bytes[i].SetLatency(0)
	}
	for _, n := range w.ensemble.Nodes {
		if err := n.Start(); err != nil {
			return err
		}
	}
	return nil
}

func (w *zkWorld) close(keep bool) {
	if w.store != nil {
		_ = w.store.Close()
	}
	if w.raw != nil {
		w.raw.Close()
	}
	for _, p := range w.bytes {
		p.Close()
	}
	for _, p := range w.frames {
		p.Close()
	}
	w.ensemble.Cleanup(keep)
}

// quietZK keeps go-zookeeper's reconnect chatter out of the output.
type quietZK struct{}

func (quietZK) Printf(string, ...any) {}
