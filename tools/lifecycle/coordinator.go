package lifecycle

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/workflows"
)

// coordKey names one JobCoordinator: its job, on the worker that runs it.
type coordKey struct {
	worker string
	job    stores.JobID
}

// sortedKeys are m's keys in a stable order, so that what the generator
// picks never depends on map order.
func sortedKeys[V any](m map[coordKey]V) []coordKey {
	keys := make([]coordKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b coordKey) int { return strings.Compare(a.worker+a.job.String(), b.worker+b.job.String()) })
	return keys
}

// coordinator is a JobCoordinator on the fast path (workflows/coordinator.go):
// a pass reads the store (ReadRetention) and removes what retention does
// not keep in one RemoveCheckpoints activity, which Temporal retries until
// it is done. Its state is CoordinatorState; pending is the removal in
// flight, which the next report waits behind.
type coordinator struct {
	w       *worker
	state   contract.CoordinatorState
	pending *activities.RemovalInput
}

// passPlan is retain's decision on what a pass read (workflows/coordinator.go):
// with retention off, or a job forgotten or retired, nothing is removed; a
// job never claimed keeps the coordinator's epoch; otherwise removals are
// conditional on the epoch the store says is claimed, never a report's.
func passPlan(view activities.RetentionView, epoch uint64) (uint64, []stores.Entry) {
	switch {
	case view.Retain <= 0:
		return epoch, nil
	case view.Job == (stores.JobState{}):
	case view.Job.Owner == "" || view.Job.Retired:
		return epoch, nil
	default:
		epoch = view.Job.Epoch
	}
	_, remove := activities.RetentionPlan(view.References, view.Retain)
	return epoch, remove
}

// report delivers a PublishedReport of epoch (JobCoordinator's absorb) and
// runs a pass unless the coordinator is deposed or its last removal is
// still in flight (the workflow awaits it before it receives again).
func (c *coordinator) report(epoch uint64, ft fault) string {
	if c.pending != nil {
		return "a removal is in flight: the report waits"
	}
	if epoch > c.state.Epoch {
		c.state.Deposed = false
	}
	if c.state.Deposed {
		return "deposed: no pass until a newer epoch reports"
	}
	job := stores.JobID{Cluster: c.state.Cluster, Job: c.state.Job}
	view, err := call[activities.RetentionView](c.w, ft, asLocal, c.w.acts.ReadRetention, job)
	if err != nil {
		return "pass: read failed: " + clip(contract.FailureMessage(err))
	}
	var remove []stores.Entry
	c.state.Epoch, remove = passPlan(view, c.state.Epoch)
	if len(remove) == 0 && len(c.state.Uncollected) == 0 {
		return fmt.Sprintf("pass at epoch %d: nothing to remove", c.state.Epoch)
	}
	in := activities.RemovalInput{Job: job, Epoch: c.state.Epoch, Uncollected: c.state.Uncollected}
	in.Items = activities.Removals(remove)
	c.pending = &in
	return fmt.Sprintf("pass at epoch %d plans to remove %s", c.state.Epoch, removalList(in))
}

func removalList(in activities.RemovalInput) string {
	ids := make([]uint64, len(in.Items))
	for i, r := range in.Items {
		ids[i] = r.Checkpoint
	}
	return fmt.Sprint(ids)
}

// remove runs one attempt of the pass's RemoveCheckpoints.
func (c *coordinator) remove(ft fault) string {
	if c.pending == nil {
		return "no removal in flight"
	}
	res, err := call[activities.RemovalResult](c.w, ft, asLocal, c.w.acts.RemoveCheckpoints, *c.pending)
	if err != nil && retryable(err) {
		return "remove fails, retried: " + clip(contract.FailureMessage(err))
	}
	c.pending = nil
	if err != nil {
		return "remove failed: " + clip(contract.FailureMessage(err))
	}
	c.state.Removed += res.Removed
	c.state.Deposed = res.Deposed
	c.state.Uncollected = res.Uncollected
	c.w.seen["checkpoints removed by retention"] += res.Removed
	c.w.seen["tombstones left for a later pass (finalization running)"] += len(res.Uncollected)
	return fmt.Sprintf("removed %d, deposed %t, kept %v, uncollected %d", res.Removed, res.Deposed, res.Kept, len(res.Uncollected))
}

// untilDone runs an activity as a workflow awaits it: Temporal retries it
// while it fails retryably (a bounded number of times here: the simulated
// store always answers, so a failure that repeats is the activity's own).
func untilDone[T any](w *worker, fn any, args ...any) (T, error) {
	var out T
	var err error
	for range 5 {
		out, err = call[T](w, faultNone, asLocal, fn, args...)
		if err == nil || !retryable(err) {
			break
		}
	}
	return out, err
}

// subsumeCheckpoint is SubsumeCheckpoint (workflows/subsume.go), the
// removal a version-0 coordinator starts and anyone with access to the
// namespace can: subsume, then, unless deposed or failed, discard.
func subsumeCheckpoint(w *worker, req workflows.SubsumeRequest) string {
	if err := contract.ValidateOwner(req.Owner); err != nil {
		return "invalid: " + err.Error()
	}
	_, err := untilDone[struct{}](w, w.acts.Subsume, activities.SubsumeInput{CheckpointID: req.CheckpointID, Epoch: req.Epoch, Owner: req.Owner})
	var app *temporal.ApplicationError
	switch {
	case errors.As(err, &app) && app.Type() == contract.TypeStaleEpoch:
		return "deposed"
	case err != nil:
		return "subsume failed: " + clip(contract.FailureMessage(err))
	}
	res, err := untilDone[activities.DiscardResult](w, w.acts.Discard, activities.HandleKey(req.HandleKey))
	if err != nil {
		return "subsumed; discard failed: " + clip(contract.FailureMessage(err))
	}
	return fmt.Sprintf("subsumed; discard: %d objects deleted, kept %q, published %t", res.DeletedObjects, res.Kept, res.Published)
}
