package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
)

// unreadableEntry is a checkpoint node as a newer finalizer version might
// write it: an encoding version this one does not read. Publish cannot
// decide over it (Unknown, nothing written) and Verify cannot read it
// (Unknown, retried with backoff without end), so the finalization parks
// in Verifying, visible as stuck, without any change to the product.
const unreadableEntry = `{"v":1000,"reference":{"handle":"written-by-a-newer-finalizer","token":"unknown","attempt":1}}`

// park writes unreadable entries straight into ZooKeeper at the paths of
// job's checkpoints from..from+n-1 (the worker's layout:
// <root>/<cluster>/checkpoints/<job>/<id %019d>), then triggers their
// finalizations through c without waiting. The job is claimed with the
// first batch (from 1).
func (sr *storeRun) park(ctx context.Context, c *client.Client, job string, from, n int) ([]*client.Finalization, error) {
	if from == 1 {
		if err := sr.claim(ctx, Durable, []string{job}); err != nil {
			return nil, err
		}
	}
	if err := sr.writeUnreadable(job, from, from+n-1); err != nil {
		return nil, err
	}
	src := newCheckpoints(sr.bucket, sr.cluster, sr.epoch, []string{job})
	src.last[job] = uint64(from - 1)
	fs := make([]*client.Finalization, n)
	err := parallel(n, func(i int) error {
		req, err := src.next(0)
		if err != nil {
			return err
		}
		fs[i], err = c.Finalize(ctx, req)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("park: %w", err)
	}
	return fs, nil
}

func (sr *storeRun) writeUnreadable(job string, first, last int) error {
	conn, _, err := zk.Connect(sr.wcfg.Store.ZooKeeper.Servers, 30*time.Second, zk.WithLogInfo(false))
	if err != nil {
		return fmt.Errorf("park: connect to zookeeper: %w", err)
	}
	defer conn.Close()
	const batch = 100
	for ; first <= last; first += batch {
		var ops []any
		for id := first; id < first+batch && id <= last; id++ {
			path := fmt.Sprintf("%s/%s/checkpoints/%s/%019d", zkRoot, sr.cluster, job, id)
			ops = append(ops, &zk.CreateRequest{Path: path, Data: []byte(unreadableEntry), Acl: zk.WorldACL(zk.PermAll)})
		}
		if _, err := conn.Multi(ops...); err != nil {
			return fmt.Errorf("park: write unreadable entries from checkpoint %d: %w", first, err)
		}
	}
	return nil
}

// awaitVerifying polls the visibility store until n of the job's
// finalizations are Verifying, as an operator would find them. It gives up
// only when the count stops growing for stall: how fast they park depends
// on the machine's load, not on the count.
func (sr *storeRun) awaitVerifying(ctx context.Context, job string, n int) (int, error) {
	const stall = 2 * time.Minute
	best, since := -1, time.Now()
	for {
		got, err := sr.countVerifying(ctx, job)
		if err != nil {
			return got, err
		}
		if got >= n {
			return got, nil
		}
		if got > best {
			best, since = got, time.Now()
		} else if time.Since(since) > stall {
			return got, fmt.Errorf("park: %d of %d finalizations Verifying, none more for %s", got, n, stall)
		}
		select {
		case <-ctx.Done():
			return got, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

func (sr *storeRun) countVerifying(ctx context.Context, job string) (int, error) {
	query := fmt.Sprintf(`%s = %q AND %s = %q AND %s = %q AND ExecutionStatus = "Running"`,
		contract.AttrCluster.GetName(), sr.cluster, contract.AttrJob.GetName(), job,
		contract.AttrPhase.GetName(), contract.Verifying)
	resp, err := sr.ready.Client.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Query: query})
	if err != nil {
		return 0, fmt.Errorf("count Verifying finalizations (%s): %w", query, err)
	}
	return int(resp.GetCount()), nil
}

// abandon ends the parked finalizations as Abandoned, state kept, as an
// operator would; failures are reported, not fatal: the servers stop next.
func (sr *storeRun) abandon(ctx context.Context, fs []*client.Finalization) {
	err := parallel(len(fs), func(i int) error { return fs[i].Abandon(ctx, "benchmark over") })
	if err != nil {
		fmt.Fprintf(sr.cfg.Progress, "%s: abandon parked finalizations: %v\n", sr.kind, err)
	}
}
