package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/kubernetes"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

// footprintSettled is the checkpoint after which retention has settled:
// the footprint there is the one every later checkpoint must keep (as in
// storetest.RunFootprint).
const footprintSettled = 100

// footprintSlack bounds how much the bytes may differ from the settled
// ones: the digits of the watermark and of a key's name, never a key more
// (storetest.RunFootprint's bound).
const footprintSlack = 64

// Footprint is what the store holds for one job whose checkpoints were
// finalized one after another through the durable path, retention and
// its collection done by the worker as in production; read after
// footprintSettled checkpoints and after the last, each time once the
// job's coordinator has settled.
type Footprint struct {
	Store  worker.StoreKind `json:"store"`
	Points []FootprintPoint `json:"points"`
}

// FootprintPoint is the job's footprint after Checkpoints: its keys
// (published references and tombstones) and the bytes the backend counts
// against its limits (the ConfigMap's keys and values; on ZooKeeper the
// data of the job node and of its checkpoints' subtree).
type FootprintPoint struct {
	Checkpoints int `json:"checkpoints"`
	Keys        int `json:"keys"`
	Bytes       int `json:"bytes"`
	// Settled: retention had caught up when it was read; read anyway
	// after the finalization timeout, so that a run whose retention falls
	// behind still reports (and fails the target) instead of stopping.
	Settled bool `json:"settled"`
}

// Bounded: retention had settled at every reading, the keys after the
// last checkpoint are those after the settled one, and the bytes within
// footprintSlack.
func (f Footprint) Bounded() bool {
	first, last := f.Points[0], f.Points[len(f.Points)-1]
	return f.unsettled() == nil && last.Keys == first.Keys && last.Bytes-first.Bytes <= footprintSlack
}

// unsettled is the first reading taken with retention still behind.
func (f Footprint) unsettled() *FootprintPoint {
	for i := range f.Points {
		if !f.Points[i].Settled {
			return &f.Points[i]
		}
	}
	return nil
}

const footprintJob = "footprint"

// footprint finalizes cfg.Footprint checkpoints of one job, one after the
// other, and reads the job's footprint after footprintSettled and after
// the last. It runs where the direct path's store reads the worker's
// backend (ZooKeeper, Kubernetes; the embedded store's file is the
// worker's alone).
func (sr *storeRun) footprint(ctx context.Context) (*Footprint, error) {
	job := stores.JobID{Cluster: sr.cluster, Job: footprintJob}
	if err := sr.claim(ctx, Durable, []string{job.Job}); err != nil {
		return nil, err
	}
	src := newCheckpoints(sr.bucket, sr.cluster, sr.epoch, []string{job.Job})
	fin := sr.finalizer(Durable)
	f := &Footprint{Store: sr.kind}
	start := time.Now()
	for n := 1; n <= sr.cfg.Footprint; n++ {
		req, err := src.next(0)
		if err != nil {
			return nil, err
		}
		fctx, cancel := context.WithTimeout(ctx, sr.cfg.Timeout)
		_, err = fin(fctx, req)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("footprint: checkpoint %d: %w", n, err)
		}
		if n != footprintSettled && n != sr.cfg.Footprint {
			continue
		}
		settled, err := sr.retentionSettled(ctx, job)
		if err != nil {
			return nil, fmt.Errorf("footprint: %w", err)
		}
		p, err := sr.footprintAt(ctx, job, n)
		if err != nil {
			return nil, err
		}
		p.Settled = settled
		behind := ""
		if !settled {
			behind = fmt.Sprintf(", retention not settled after %s", sr.cfg.Timeout)
		}
		fmt.Fprintf(sr.cfg.Progress, "%s: footprint after %d checkpoints (%s): %d keys, %d bytes%s\n",
			sr.kind, n, time.Since(start).Round(time.Second), p.Keys, p.Bytes, behind)
		f.Points = append(f.Points, p)
	}
	return f, nil
}

func (sr *storeRun) footprintAt(ctx context.Context, job stores.JobID, n int) (FootprintPoint, error) {
	entries, err := sr.refs.ListEntries(ctx, job)
	if err != nil {
		return FootprintPoint{}, fmt.Errorf("footprint: list entries: %w", err)
	}
	p := FootprintPoint{Checkpoints: n, Keys: len(entries)}
	if sr.kind == worker.StoreKubernetes {
		p.Bytes, err = sr.configMapBytes(ctx, job)
	} else {
		p.Bytes, err = sr.zookeeperBytes(job)
	}
	return p, err
}

// configMapBytes is the job's ConfigMap's keys and values.
func (sr *storeRun) configMapBytes(ctx context.Context, job stores.JobID) (int, error) {
	name, err := kubernetes.ConfigMapName(job)
	if err != nil {
		return 0, err
	}
	cm, err := sr.srv.kube.admin.ConfigMaps(kubeNamespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return 0, fmt.Errorf("footprint: get configmap %s: %w", name, err)
	}
	n := 0
	for k, v := range cm.Data {
		n += len(k) + len(v)
	}
	return n, nil
}

// zookeeperBytes is the data of the job node, of its checkpoints node and
// of each checkpoint's node under it (the worker's layout:
// <root>/<cluster>/jobs/<job>, <root>/<cluster>/checkpoints/<job>/<id>).
func (sr *storeRun) zookeeperBytes(job stores.JobID) (int, error) {
	conn, _, err := zk.Connect(sr.wcfg.Store.ZooKeeper.Servers, 30*time.Second, zk.WithLogInfo(false))
	if err != nil {
		return 0, fmt.Errorf("footprint: connect to zookeeper: %w", err)
	}
	defer conn.Close()
	base := zkRoot + "/" + job.Cluster
	checkpoints := base + "/checkpoints/" + job.Job
	keys, _, err := conn.Children(checkpoints)
	if err != nil {
		return 0, fmt.Errorf("footprint: children of %s: %w", checkpoints, err)
	}
	paths := []string{base + "/jobs/" + job.Job, checkpoints}
	for _, k := range keys {
		paths = append(paths, checkpoints+"/"+k)
	}
	n := 0
	for _, p := range paths {
		_, stat, err := conn.Exists(p)
		if err != nil {
			return 0, fmt.Errorf("footprint: stat %s: %w", p, err)
		}
		n += int(stat.DataLength)
	}
	return n, nil
}

// retentionSettled waits, at most the finalization timeout, until the
// job's retention has nothing left to do: no tombstone, and no more
// references than retention keeps. False: it had not by then.
func (sr *storeRun) retentionSettled(ctx context.Context, job stores.JobID) (bool, error) {
	return pollUntil(ctx, time.Now().Add(sr.cfg.Timeout), 100*time.Millisecond, func() (bool, error) {
		entries, err := sr.refs.ListEntries(ctx, job)
		if err != nil {
			return false, fmt.Errorf("list entries: %w", err)
		}
		settled := sr.cfg.Retain <= 0 || len(entries) <= sr.cfg.Retain
		for _, e := range entries {
			settled = settled && e.Reference != nil
		}
		return settled, nil
	})
}
