package blobstate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// HandleInfo is one handle blob found by a listing: its key, the identity
// the key names, and when it was last written.
type HandleInfo struct {
	Key string `json:"key"`
	stores.CheckpointID
	Epoch uint64 `json:"epoch"`
	// ModTime is the blob's modification time, zero when the driver does
	// not report one: a caller that needs an age must then treat it as
	// unknown, never as old.
	ModTime time.Time `json:"modTime,omitzero"`
}

// Listing is what a listing of handle blobs found, in key order (which is
// job, epoch, then checkpoint order: the numbers are zero-padded).
type Listing struct {
	Handles []HandleInfo `json:"handles,omitempty"`
	// Foreign are keys under the listed prefix that are not handle keys
	// (ParseKey refuses them). Nothing this package writes looks like
	// that; they are reported, never touched.
	Foreign []string `json:"foreign,omitempty"`
}

// ListHandles lists every handle blob of the cluster, all jobs.
func (s *Store) ListHandles(ctx context.Context, cluster string) (Listing, error) {
	if err := stores.ValidateCluster(cluster); err != nil {
		return Listing{}, fmt.Errorf("list handles: %w", err)
	}
	return s.listHandles(ctx, stores.HandlesPrefix+cluster+"/")
}

// ListJobHandles lists the handle blobs of one job, every epoch.
func (s *Store) ListJobHandles(ctx context.Context, job stores.JobID) (Listing, error) {
	if err := job.Validate(); err != nil {
		return Listing{}, fmt.Errorf("list handles: %w", err)
	}
	return s.listHandles(ctx, stores.HandlesPrefix+job.Cluster+"/"+job.Job+"/")
}

// HandleJobs lists the jobs of the cluster that have handle blobs, sorted.
// A directory whose name is not a job ID is skipped: no handle key can
// live under it.
func (s *Store) HandleJobs(ctx context.Context, cluster string) ([]stores.JobID, error) {
	if err := stores.ValidateCluster(cluster); err != nil {
		return nil, fmt.Errorf("list jobs with handles: %w", err)
	}
	prefix := stores.HandlesPrefix + cluster + "/"
	var jobs []stores.JobID
	err := s.each(ctx, &blob.ListOptions{Prefix: prefix, Delimiter: "/"}, func(o *blob.ListObject) {
		name, ok := strings.CutSuffix(strings.TrimPrefix(o.Key, prefix), "/")
		job := stores.JobID{Cluster: cluster, Job: name}
		if o.IsDir && ok && job.Validate() == nil {
			jobs = append(jobs, job)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("list jobs with handles under %s: %w", prefix, err)
	}
	return stores.SortJobs(jobs), nil
}

// HandleClusters lists the clusters that have handle blobs, sorted. A
// directory whose name is not a cluster ID is skipped.
func (s *Store) HandleClusters(ctx context.Context) ([]string, error) {
	var clusters []string
	err := s.each(ctx, &blob.ListOptions{Prefix: stores.HandlesPrefix, Delimiter: "/"}, func(o *blob.ListObject) {
		name, ok := strings.CutSuffix(strings.TrimPrefix(o.Key, stores.HandlesPrefix), "/")
		if o.IsDir && ok && stores.ValidateCluster(name) == nil {
			clusters = append(clusters, name)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("list clusters with handles: %w", err)
	}
	slices.Sort(clusters)
	return clusters, nil
}

func (s *Store) listHandles(ctx context.Context, prefix string) (Listing, error) {
	var l Listing
	err := s.each(ctx, &blob.ListOptions{Prefix: prefix}, func(o *blob.ListObject) {
		if o.IsDir {
			return
		}
		id, epoch, err := ParseKey(o.Key)
		if err != nil {
			l.Foreign = append(l.Foreign, o.Key)
			return
		}
		l.Handles = append(l.Handles, HandleInfo{Key: o.Key, CheckpointID: id, Epoch: epoch, ModTime: o.ModTime.UTC()})
	})
	if err != nil {
		return Listing{}, fmt.Errorf("list handles under %s: %w", prefix, err)
	}
	slices.SortFunc(l.Handles, func(a, b HandleInfo) int { return strings.Compare(a.Key, b.Key) })
	slices.Sort(l.Foreign)
	return l, nil
}

// each visits every object a listing returns, page by page.
func (s *Store) each(ctx context.Context, opts *blob.ListOptions, visit func(*blob.ListObject)) error {
	it := s.bucket.List(opts)
	for {
		o, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return s.scrub(err)
		}
		visit(o)
	}
}

// HandleModTime is when the handle blob at key was last written: zero when
// the driver does not report it (an age that must count as unknown),
// ErrNotFound when no blob is stored.
func (s *Store) HandleModTime(ctx context.Context, key string) (time.Time, error) {
	if _, _, err := ParseKey(key); err != nil {
		return time.Time{}, fmt.Errorf("stat handle: %w", err)
	}
	attrs, err := s.bucket.Attributes(ctx, key)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return time.Time{}, fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("stat %s: %w", key, s.scrub(err))
	}
	return attrs.ModTime.UTC(), nil
}
