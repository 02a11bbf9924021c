package blobstate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// AnyCluster is the layout spec that serves every cluster, each keeping its
// checkpoints, and its savepoints, under "<cluster>/" in the bucket.
const AnyCluster = "*"

// Layout says which clusters a worker serves and where each keeps its
// checkpoints in the state bucket: checkpoint N of job J lives in
// "<dir>/J/chk-N/", Flink's layout under state.checkpoints.dir; and where
// its savepoints may lie (Flink's state.savepoints.dir). A request names
// its checkpoint's data; the layout is what that name is checked against,
// so a request can never make a discard reach another checkpoint's, job's
// or cluster's data, nor make the worker read another cluster's.
type Layout struct {
	// dirs maps each served cluster to its checkpoints directory, without
	// a trailing '/'. Empty when every cluster is served at "<cluster>".
	dirs map[string]string
	// savepoints maps a served cluster to its savepoints directory,
	// without a trailing '/'; a cluster without one keeps its savepoints
	// in their own checkpoint directories. Unused with AnyCluster.
	savepoints map[string]string
}

// ParseLayout reads a layout spec: "*" (every cluster at "<cluster>/"), or
// a comma-separated list of cluster=dir or cluster=dir:savepoints, each a
// bucket prefix such as "flink/prod-eu/checkpoints:flink/prod-eu/savepoints".
// No directory may nest in another, its cluster's own included, so no two
// clusters' data can ever share a directory and no savepoint can lie in a
// checkpoint's.
func ParseLayout(spec string) (Layout, error) {
	bad := func(format string, args ...any) (Layout, error) {
		return Layout{}, &stores.InvalidError{Field: "clusters", Rule: fmt.Sprintf(format, args...)}
	}
	spec = strings.TrimSpace(spec)
	switch spec {
	case "":
		return bad("must be %q or a list of cluster=dir[:savepoints-dir]", AnyCluster)
	case AnyCluster:
		return Layout{}, nil
	}
	l := Layout{dirs: map[string]string{}, savepoints: map[string]string{}}
	type named struct{ what, dir string }
	var all []named
	for _, item := range strings.Split(spec, ",") {
		cluster, dirs, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return bad("%q: want cluster=dir[:savepoints-dir] (or %q alone for every cluster)", item, AnyCluster)
		}
		if err := stores.ValidateCluster(cluster); err != nil {
			return bad("%q: %v", item, err)
		}
		if _, dup := l.dirs[cluster]; dup {
			return bad("cluster %q is listed twice", cluster)
		}
		dir, savepoints, hasSavepoints := strings.Cut(dirs, ":")
		dir = strings.TrimSuffix(dir, "/")
		if err := stores.ValidateObjectKey("clusters", dir+"/", true); err != nil {
			return bad("directory of %s: %v", cluster, err)
		}
		l.dirs[cluster] = dir
		all = append(all, named{"checkpoints of " + cluster, dir})
		if hasSavepoints {
			savepoints = strings.TrimSuffix(savepoints, "/")
			if err := stores.ValidateObjectKey("clusters", savepoints+"/", true); err != nil {
				return bad("savepoints directory of %s: %v", cluster, err)
			}
			l.savepoints[cluster] = savepoints
			all = append(all, named{"savepoints of " + cluster, savepoints})
		}
	}
	for i, a := range all {
		for j, b := range all {
			if i != j && strings.HasPrefix(a.dir+"/", b.dir+"/") {
				return bad("the directories of %s (%q) and %s (%q) nest: no directory may lie in another, so that no request can name one's data as another's", a.what, a.dir, b.what, b.dir)
			}
		}
	}
	return l, nil
}

// String is the spec the layout was parsed from, in a canonical order.
func (l Layout) String() string {
	if l.dirs == nil {
		return AnyCluster
	}
	items := make([]string, 0, len(l.dirs))
	for c, d := range l.dirs {
		if sp, ok := l.savepoints[c]; ok {
			d += ":" + sp
		}
		items = append(items, c+"="+d)
	}
	slices.Sort(items)
	return strings.Join(items, ",")
}

// Clusters lists the clusters the layout names, sorted; every cluster
// when it is AnyCluster (all true, no names).
func (l Layout) Clusters() (names []string, all bool) {
	if l.dirs == nil {
		return nil, true
	}
	for c := range l.dirs {
		names = append(names, c)
	}
	slices.Sort(names)
	return names, false
}

// Serves refuses a cluster the worker is not configured for.
func (l Layout) Serves(cluster string) error {
	if err := stores.ValidateCluster(cluster); err != nil {
		return err
	}
	if _, ok := l.dir(cluster); !ok {
		return &stores.InvalidError{Field: "cluster", Rule: fmt.Sprintf("%q is not served by this worker (its clusters: %s)", cluster, l)}
	}
	return nil
}

func (l Layout) dir(cluster string) (string, bool) {
	if l.dirs == nil {
		return cluster, true
	}
	d, ok := l.dirs[cluster]
	return d, ok
}

// CheckpointDir is the directory of a checkpoint's exclusive data:
// "<dir>/<job>/chk-<N>/".
func (l Layout) CheckpointDir(id stores.CheckpointID) (string, error) {
	if err := l.Serves(id.Cluster); err != nil {
		return "", err
	}
	d, _ := l.dir(id.Cluster)
	return fmt.Sprintf("%s/%s/chk-%d/", d, id.Job, id.Checkpoint), nil
}

// Check refuses a handle whose pointers lie outside what the layout gives
// its checkpoint. A checkpoint's exclusive prefix must be exactly its
// directory and its metadata must lie in it, outside any nested chk-<n>
// directory. A savepoint's data is never discarded, but its metadata is
// read: it and its prefix lie in the savepoint's own checkpoint directory
// or under its cluster's savepoints directory ("<cluster>/" with
// AnyCluster), never in another checkpoint's directory, whose discard
// would delete them. The error names the field and the expected value.
func (l Layout) Check(h Handle) error {
	want, err := l.CheckpointDir(h.CheckpointID)
	if err != nil {
		return err
	}
	if h.Savepoint {
		for _, f := range []struct{ field, key string }{{"metadataKey", h.MetadataKey}, {"exclusivePrefix", h.ExclusivePrefix}} {
			if f.key == "" || strings.HasPrefix(f.key, want) {
				continue
			}
			if rule := l.savepointRule(h.Cluster, f.key, want); rule != "" {
				return &stores.InvalidError{Field: f.field, Rule: rule}
			}
		}
		return nil
	}
	if h.ExclusivePrefix != want {
		return &stores.InvalidError{Field: "exclusivePrefix", Rule: fmt.Sprintf("%q: must be %q, the directory of checkpoint %d of job %s in cluster %s", h.ExclusivePrefix, want, h.Checkpoint, h.Job, h.Cluster)}
	}
	rest, ok := strings.CutPrefix(h.MetadataKey, want)
	if !ok {
		return &stores.InvalidError{Field: "metadataKey", Rule: fmt.Sprintf("%q: must lie in %q", h.MetadataKey, want)}
	}
	if nestedCheckpointDir(rest) {
		return &stores.InvalidError{Field: "metadataKey", Rule: fmt.Sprintf("%q: nested checkpoint directory inside %q", h.MetadataKey, want)}
	}
	return nil
}

// savepointRule is why key, outside the savepoint's own checkpoint
// directory own, may not be its: "" when it lies under the cluster's
// savepoints directory and in no checkpoint's directory.
func (l Layout) savepointRule(cluster, key, own string) string {
	dir, ok := l.savepointsDir(cluster)
	switch {
	case !ok:
		return fmt.Sprintf("%q: a savepoint of cluster %s lies in its own checkpoint directory %q: no savepoints directory is configured for %s (-clusters %s=<checkpoints-dir>:<savepoints-dir>)", key, cluster, own, cluster, cluster)
	case !strings.HasPrefix(key, dir):
		return fmt.Sprintf("%q: a savepoint of cluster %s lies in its own checkpoint directory %q or under the cluster's savepoints directory %q", key, cluster, own, dir)
	case l.insideCheckpointDir(key):
		return fmt.Sprintf("%q: inside another checkpoint's directory, whose discard would delete it; a savepoint of cluster %s lies in its own checkpoint directory %q or elsewhere under %q", key, cluster, own, dir)
	}
	return ""
}

// savepointsDir is where a served cluster's savepoints lie, with a
// trailing '/'; false when none is configured.
func (l Layout) savepointsDir(cluster string) (string, bool) {
	if l.dirs == nil {
		return cluster + "/", true
	}
	d, ok := l.savepoints[cluster]
	return d + "/", ok
}

// insideCheckpointDir reports whether key lies in some checkpoint's
// directory of a served cluster: "<dir>/<job>/chk-<n>/...".
func (l Layout) insideCheckpointDir(key string) bool {
	segs := strings.Split(key, "/")
	var dirs []string
	if l.dirs == nil {
		dirs = []string{segs[0]}
	} else {
		for _, d := range l.dirs {
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		rest, ok := strings.CutPrefix(key, d+"/")
		if !ok {
			continue
		}
		parts := strings.Split(rest, "/")
		if len(parts) >= 3 && isCheckpointDirName(parts[1]) {
			return true
		}
	}
	return false
}

// nestedCheckpointDir reports whether a path below a checkpoint's
// directory passes through another chk-<n> directory.
func nestedCheckpointDir(rest string) bool {
	parts := strings.Split(rest, "/")
	for _, p := range parts[:len(parts)-1] {
		if isCheckpointDirName(p) {
			return true
		}
	}
	return false
}

func isCheckpointDirName(seg string) bool {
	n, ok := strings.CutPrefix(seg, "chk-")
	if !ok {
		return false
	}
	_, err := strconv.ParseUint(n, 10, 64)
	return err == nil
}
