package lifecycle

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// The clusters of the simulation. The worker under test serves only
// served; peer is another tenant of the same HA store and bucket, served
// by its own worker, whose state the served worker must never read or
// write.
const (
	served = "c1"
	peer   = "c2"
)

// clusters lists both, served first.
var clusters = []string{served, peer}

// checkpointsDir is where a cluster keeps its checkpoints
// (state.checkpoints.dir); savepointsDir where its operator takes
// savepoints, outside every checkpoint directory.
func checkpointsDir(cluster string) string { return "flink/" + cluster + "/checkpoints" }
func savepointsDir(cluster string) string  { return "savepoints/" + cluster }

// layoutSpec is a worker's -clusters for the one cluster it serves: its
// checkpoints and its savepoints directories.
func layoutSpec(cluster string) string {
	return cluster + "=" + checkpointsDir(cluster) + ":" + savepointsDir(cluster)
}

// layouts are the workers' layouts (layoutSpec), by cluster.
var layouts = func() map[string]blobstate.Layout {
	out := map[string]blobstate.Layout{}
	for _, c := range clusters {
		l, err := blobstate.ParseLayout(layoutSpec(c))
		if err != nil {
			panic(fmt.Sprintf("lifecycle: layout of %s: %v", c, err))
		}
		out[c] = l
	}
	return out
}()

// checkpointDir is checkpoint id's directory in its cluster's layout.
func checkpointDir(id stores.CheckpointID) string {
	dir, err := layouts[id.Cluster].CheckpointDir(id)
	if err != nil {
		panic(fmt.Sprintf("lifecycle: %v", err)) // every job's cluster has a layout
	}
	return dir
}

// jobs are the simulation's jobs: two of the served cluster, one of the
// peer's.
var jobs = []stores.JobID{{Cluster: served, Job: "j1"}, {Cluster: served, Job: "j2"}, {Cluster: peer, Job: "j1"}}

// clusterOfKey names the cluster a bucket key belongs to: its handles,
// its checkpoints directory or its savepoints directory; "" for a key of
// none.
func clusterOfKey(key string) string {
	for _, c := range clusters {
		for _, prefix := range []string{stores.HandlesPrefix + c + "/", checkpointsDir(c) + "/", savepointsDir(c) + "/"} {
			if strings.HasPrefix(key, prefix) {
				return c
			}
		}
	}
	return ""
}

// tenant records what one worker's activities touch outside the clusters
// it serves: every store call and bucket key passes its recorder
// (recorded.go) before it reaches the real store or bucket.
type tenant struct {
	cluster string
	// foreign: what was touched outside cluster since the last drain.
	foreign []touch
	// objects maps the SHA-256 of every object the simulation wrote to its
	// key (shared by the world's tenants).
	objects map[string]string
}

// job notes a store call naming a job.
func (t *tenant) job(op string, job stores.JobID) { t.clusterCall(op, job.Cluster, job.String()) }

func (t *tenant) clusterCall(op, cluster, what string) {
	if cluster != t.cluster {
		t.foreign = append(t.foreign, touch{op: op, what: what})
	}
}

// key notes a bucket key read, written or deleted.
func (t *tenant) key(op, key string) {
	if c := clusterOfKey(key); c != "" {
		t.clusterCall(op, c, key)
	}
}

// touch is one thing of another tenant's read, written or leaked.
type touch struct{ op, what string }

// drain returns what was touched outside the served cluster since the
// last drain.
func (t *tenant) drain() []touch {
	out := t.foreign
	t.foreign = nil
	return out
}

var digest = regexp.MustCompile(`[0-9a-f]{64}`)

// leak notes an error that prints the SHA-256 of an object outside the
// worker's cluster which the activity's input did not carry: an oracle for
// data the caller could not read.
func (t *tenant) leak(errText, input string) {
	for _, d := range digest.FindAllString(errText, -1) {
		key, known := t.objects[d]
		if known && clusterOfKey(key) != t.cluster && !strings.Contains(input, d) {
			t.foreign = append(t.foreign, touch{op: "print the SHA-256 of", what: fmt.Sprintf("%s, which the request did not carry, in: %s", key, clip(errText))})
		}
	}
}
