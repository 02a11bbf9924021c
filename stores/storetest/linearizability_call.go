package storetest

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// run makes the call on a real store and records its answer. start is when
// the test began (CollectTombstones' cutoff); inv is s as a stores.Inventory,
// for the inventory calls.
func (c call) run(ctx context.Context, s stores.ReferenceStore, inv stores.Inventory, start time.Time) answer {
	switch c.Kind {
	case opClaim:
		return outcome(s.ClaimEpoch(ctx, c.Job, c.Epoch, c.Owner))
	case opPublish:
		return outcome(s.Publish(ctx, c.publication()))
	case opVerify:
		v, err := s.Verify(ctx, c.id(), c.Token, c.Attempt)
		if err != nil {
			return outcome(err)
		}
		a := answer{Verdict: v}
		if v != stores.Present && v != stores.Absent {
			a.Malformed = fmt.Sprintf("verdict %v without an error", v)
		}
		return a
	case opSubsume:
		return outcome(s.Subsume(ctx, c.id(), c.Epoch))
	case opRetire:
		return outcome(s.Retire(ctx, c.Job, c.Epoch, c.Keep))
	case opCollect:
		n, err := s.CollectTombstones(ctx, c.Job, c.cutoff(time.Now(), start))
		if err != nil {
			return outcome(err)
		}
		return answer{Count: n}
	case opCollectSubsumed:
		return outcome(s.CollectSubsumed(ctx, c.id(), c.Token))
	case opQuarantine:
		return outcome(inv.Quarantine(ctx, c.id(), c.Token))
	case opRead:
		e, err := s.Read(ctx, c.id())
		if err != nil {
			return outcome(err)
		}
		a := answer{Entry: slotOf(e)}
		if e.Checkpoint != c.Key || (e.Reference != nil && e.Tombstone != nil) {
			a.Malformed = fmt.Sprintf("read of checkpoint %d answered %+v", c.Key, e)
		}
		return a
	case opReadJob:
		st, err := s.ReadJob(ctx, c.Job)
		if err != nil {
			return outcome(err)
		}
		return answer{State: st}
	case opList:
		list, err := s.List(ctx, c.Job)
		return listed(list, err, true)
	case opListEntries:
		all, err := s.ListEntries(ctx, c.Job)
		return listed(all, err, false)
	case opListJobs:
		jobs, err := inv.ListJobs(ctx, c.Job.Cluster)
		if err != nil {
			return outcome(err)
		}
		// Each job of the workload has a cluster of its own.
		a := answer{Listed: slices.Equal(jobs, []stores.JobID{c.Job})}
		if !a.Listed && len(jobs) > 0 {
			a.Malformed = fmt.Sprintf("cluster %s lists %v", c.Job.Cluster, jobs)
		}
		return a
	}
	panic("storetest: unknown call kind")
}

// listed turns a List (published only) or ListEntries answer into keys,
// and says what breaks its shape: order, range, duplicates, a tombstone in
// a List.
func listed(entries []stores.Entry, err error, publishedOnly bool) answer {
	if err != nil {
		return outcome(err)
	}
	var a answer
	var last uint64
	for _, e := range entries {
		switch {
		case e.Checkpoint <= last || e.Checkpoint > modelKeys:
			a.Malformed = fmt.Sprintf("checkpoint %d after %d (keys 1..%d, in order, once)", e.Checkpoint, last, modelKeys)
		case e.Absent() || (e.Reference != nil && e.Tombstone != nil):
			a.Malformed = fmt.Sprintf("checkpoint %d holds %+v", e.Checkpoint, e)
		case publishedOnly && e.Reference == nil:
			a.Malformed = fmt.Sprintf("List returned the tombstone of checkpoint %d", e.Checkpoint)
		default:
			a.Keys[e.Checkpoint] = slotOf(e)
		}
		last = max(last, e.Checkpoint)
	}
	return a
}
