package bench

import (
	"fmt"
	"sync"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// checkpoints hands out fresh checkpoints of a set of jobs, writing their
// files into the bucket first, as a job manager does before it triggers.
// Each job's checkpoint IDs grow, so no two finalizations collide.
type checkpoints struct {
	bucket  jobmanager.Bucket
	cluster string
	epoch   uint64
	jobs    []string

	mu   sync.Mutex
	last map[string]uint64
}

func newCheckpoints(bucket jobmanager.Bucket, cluster string, epoch uint64, jobs []string) *checkpoints {
	return &checkpoints{bucket: bucket, cluster: cluster, epoch: epoch, jobs: jobs, last: map[string]uint64{}}
}

// jobNames names n jobs of a phase: DNS-1123 labels unique in the run.
func jobNames(prefix string, n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%d", prefix, i+1)
	}
	return names
}

// next writes the next checkpoint of the slot's job and returns its request.
func (c *checkpoints) next(slot int) (contract.FinalizeRequest, error) {
	job := c.jobs[slot%len(c.jobs)]
	c.mu.Lock()
	c.last[job]++
	n := c.last[job]
	c.mu.Unlock()
	req, err := c.bucket.WriteCheckpoint(stores.JobID{Cluster: c.cluster, Job: job}, c.epoch, n, false)
	if err != nil {
		return req, fmt.Errorf("write checkpoint %d of %s: %w", n, job, err)
	}
	return req, nil
}
