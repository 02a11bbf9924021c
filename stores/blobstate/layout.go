package blobstate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// AnyCluster is the layout spec that serves every cluster, each keeping its
// checkpoints under "<cluster>/" in the bucket.
const AnyCluster = "*"

// Layout says which clusters a worker serves and where each keeps its
// checkpoints in the state bucket: checkpoint N of job J lives in
// "<dir>/J/chk-N/", Flink's layout under state.checkpoints.dir. A request
// names its checkpoint's data; the layout is what that name is checked
// against, so a request can never make a discard reach another
// checkpoint's, job's or cluster's data.
type Layout struct {
	// dirs maps each served cluster to its checkpoints directory, without
	// a trailing '/'. Empty when every cluster is served at "<cluster>".
	dirs map[string]string
}

// ParseLayout reads a layout spec: "*" (every cluster at "<cluster>/"), or
// a comma-separated list of cluster=dir, each dir a bucket prefix such as
// "flink/prod-eu/checkpoints". Directories may not nest in one another, so
// no two clusters' checkpoints can ever share a directory.
func ParseLayout(spec string) (Layout, error) {
	bad := func(format string, args ...any) (Layout, error) {
		return Layout{}, &stores.InvalidError{Field: "clusters", Rule: fmt.Sprintf(format, args...)}
	}
	spec = strings.TrimSpace(spec)
	switch spec {
	case "":
		return bad("must be %q or a list of cluster=dir", AnyCluster)
	case AnyCluster:
		return Layout{}, nil
	}
	l := Layout{dirs: map[string]string{}}
	for _, item := range strings.Split(spec, ",") {
		cluster, dir, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return bad("%q: want cluster=dir (or %q alone for every cluster)", item, AnyCluster)
		}
		if err := stores.ValidateCluster(cluster); err != nil {
			return bad("%q: %v", item, err)
		}
		if _, dup := l.dirs[cluster]; dup {
			return bad("cluster %q is listed twice", cluster)
		}
		dir = strings.TrimSuffix(dir, "/")
		if err := stores.ValidateObjectKey("clusters", dir+"/", true); err != nil {
			return bad("directory of %s: %v", cluster, err)
		}
		l.dirs[cluster] = dir
	}
	for a, da := range l.dirs {
		for b, db := range l.dirs {
			if a != b && strings.HasPrefix(da+"/", db+"/") {
				return bad("directories of %s (%q) and %s (%q) nest: clusters must not share checkpoint data", a, da, b, db)
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
		items = append(items, c+"="+d)
	}
	slices.Sort(items)
	return strings.Join(items, ",")
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
// directory. A savepoint's data is never discarded, but its metadata and
// prefix must not lie inside another checkpoint's directory, whose discard
// would delete them (its own is guarded by its own key). The error names the field and the expected value.
func (l Layout) Check(h Handle) error {
	want, err := l.CheckpointDir(h.CheckpointID)
	if err != nil {
		return err
	}
	if h.Savepoint {
		for _, f := range []struct{ field, key string }{{"metadataKey", h.MetadataKey}, {"exclusivePrefix", h.ExclusivePrefix}} {
			if f.key != "" && !strings.HasPrefix(f.key, want) && l.insideCheckpointDir(f.key) {
				return &stores.InvalidError{Field: f.field, Rule: fmt.Sprintf("%q: a savepoint lies in its own directory %q or outside every checkpoint's directory, whose discard would delete it", f.key, want)}
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
