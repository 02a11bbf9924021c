package workflows

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// a names activities by method; its fields are never used in a workflow.
var a *activities.Activities

// FinalizeCheckpoint finalizes one checkpoint; see the package documentation.
func FinalizeCheckpoint(ctx workflow.Context, req contract.FinalizeRequest) (contract.FinalizeResult, error) {
	f := newFinalization(ctx, req)
	f.version = pathVersion(ctx)
	f.local = f.version >= fastPathVersion
	if err := f.start(); err != nil {
		return contract.FinalizeResult{}, err
	}
	if err := validated(ctx, req.Validate()); err != nil {
		return f.end(contract.Failed, err.Error()), nil
	}

	f.setPhase(contract.Persisting)
	persisted, err := f.persist(ctx)
	if f.abandoned != "" {
		return f.abandonedPersisting(ctx, persisted), nil
	}
	if err != nil {
		// Only definite failures (invalid, data missing) end the retries.
		if isDataMissing(err) && f.asksWhenDataMissing(ctx) && f.publishedBefore(ctx) {
			return f.end(contract.Published, contract.PublishedBeforeReason), nil
		}
		if f.abandoned != "" { // while asking whether it was published
			return f.abandonedPersisting(ctx, persisted), nil
		}
		return f.end(contract.Failed, contract.FailureMessage(err)), nil
	}
	f.status.HandleKey, f.status.StoreKind = persisted.HandleKey, persisted.StoreKind

	// unfenced: an attempt's outcome is unknown and no fence covers it yet.
	unfenced := false
	for {
		f.status.Attempts++
		f.setPhase(contract.Publishing)
		// Only the first attempt is on the fast path: a republish follows a
		// fence, which the regular path records as it goes.
		fast := f.local && f.status.Attempts == 1
		var report workflow.Future
		if fast && f.reports() {
			// The report only wakes the coordinator, whose pass reads the
			// store: sent alongside the publish, it costs no time of its
			// own. A reference that lands after the pass waits for the next.
			report = reportCall.execute(ctx, true, a.Report, f.report())
		}
		err := publishCall.execute(ctx, fast, a.Publish, f.publication()).Get(ctx, nil)
		reported := report != nil && f.reported(ctx, report)
		switch outcomeOf(err) {
		case stores.Published:
			return f.published(ctx, reported)
		case stores.Rejected:
			f.status.LastError = contract.FailureMessage(err)
			if !unfenced {
				return f.discard(ctx, fmt.Sprintf("publish attempt %d rejected: %s", f.status.Attempts, contract.FailureMessage(err)))
			}
		default:
			f.status.LastError = contract.FailureMessage(err)
			unfenced = true
		}

		verdict, abandoned := f.verify(ctx)
		if abandoned != "" {
			return f.endAbandoned(ctx, abandoned, ""), nil
		}
		if verdict == stores.Present {
			return f.published(ctx, false)
		}
		unfenced = false
		f.status.Fences++
		if f.status.Attempts >= req.MaxAttempts() {
			return f.discard(ctx, fmt.Sprintf("absent after %d publish attempts, fenced", f.status.Attempts))
		}
	}
}

// The "abandon-keeps-mark" change: an abandoned finalization records,
// beside its handle, that an operator keeps its state
// (activities.KeepAbandoned) before it ends. Its result alone said so
// only while the namespace retained its history. Executions recorded
// before the change ended without the mark.
const abandonMarkChange = "abandon-keeps-mark"

// endAbandoned ends the finalization Abandoned once the bucket holds the mark
// that keeps its state, for the operator's reason; the result's reason adds
// note (where it was abandoned). A bucket that does not answer keeps it
// trying.
func (f *finalization) endAbandoned(ctx workflow.Context, reason, note string) contract.FinalizeResult {
	if workflow.GetVersion(ctx, abandonMarkChange, workflow.DefaultVersion, 1) == 1 {
		in := activities.AbandonInput{HandleKey: activities.HandleKey(f.status.HandleKey), Reason: reason}
		if err := storeCall.execute(ctx, false, a.KeepAbandoned, in).Get(ctx, nil); err != nil {
			// Only an invalid key ends the retries: there is no handle to
			// keep, so nothing of the state can be found to delete either.
			f.status.LastError = contract.FailureMessage(err)
		}
	}
	return f.end(contract.Abandoned, reason+note)
}

// abandonedPersisting ends a finalization an operator abandoned while
// Persisting. It sent no publish. Whether its stopped persist wrote the
// handle is unknown, so the mark goes under the key the handle has or
// would have (deterministic): whatever the persist wrote stays, and the
// result names that key.
func (f *finalization) abandonedPersisting(ctx workflow.Context, persisted activities.PersistResult) contract.FinalizeResult {
	f.status.HandleKey, f.status.StoreKind = persisted.HandleKey, persisted.StoreKind
	if f.status.HandleKey == "" {
		f.status.HandleKey = activities.HandleOf(f.req).Key()
	}
	return f.endAbandoned(ctx, f.abandoned, " (abandoned while Persisting: this execution published nothing; the handle, if written, and the data are kept)")
}

// persist writes the handle. On the fast path it runs locally for at most
// persistLocalFor, then, unless it failed for good, as a regular activity
// retrying for ever (see persistFallbackChange).
func (f *finalization) persist(ctx workflow.Context) (activities.PersistResult, error) {
	var persisted activities.PersistResult
	h := activities.HandleOf(f.req)
	if !f.local {
		return f.persistRegular(ctx, h)
	}
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		ScheduleToCloseTimeout: persistLocalFor, RetryPolicy: persistCall.retry,
	})
	err := workflow.ExecuteLocalActivity(lctx, a.PersistHandle, h).Get(ctx, &persisted)
	if err == nil || definite(err) ||
		workflow.GetVersion(ctx, persistFallbackChange, workflow.DefaultVersion, persistFallbackVersion) == workflow.DefaultVersion {
		return persisted, err
	}
	f.status.LastError = contract.FailureMessage(err)
	f.showDetails()
	return f.persistRegular(ctx, h)
}

// persistRegular persists as a regular activity, retrying for ever, which
// retry-now and abandon reach (operatorSignalsChange): an abandoned one
// returns with f.abandoned set.
func (f *finalization) persistRegular(ctx workflow.Context, h blobstate.Handle) (activities.PersistResult, error) {
	var persisted activities.PersistResult
	if operatorReachable(ctx) {
		err := f.interruptible(ctx, persistCall, a.PersistHandle, h, &persisted)
		return persisted, err
	}
	err := persistCall.execute(ctx, false, a.PersistHandle, h).Get(ctx, &persisted)
	return persisted, err
}

// definite: an activity's failure that no retry changes (a non-retryable
// type, the workflow's cancellation).
func definite(err error) bool {
	var app *temporal.ApplicationError
	return temporal.IsCanceledError(err) || errors.As(err, &app) && app.NonRetryable()
}

// publishedBefore asks the store whether this finalization's token was
// published. On the fast path, a workflow task retried after its worker
// died runs persist again; if the lost run had published and the
// checkpoint has been subsumed since, its data is gone: Published, not
// Failed. A store that does not answer keeps it asking, until an operator
// abandons it (false, f.abandoned set; operatorSignalsChange).
func (f *finalization) publishedBefore(ctx workflow.Context) bool {
	in := activities.VerifyInput{CheckpointID: f.req.CheckpointID(), Token: f.req.Token(), Attempt: 1, Epoch: f.req.Epoch, Owner: f.req.Owner}
	var published bool
	var err error
	if operatorReachable(ctx) {
		err = f.interruptible(ctx, storeCall, a.PublishedBefore, in, &published)
	} else {
		err = storeCall.execute(ctx, false, a.PublishedBefore, in).Get(ctx, &published)
	}
	if f.abandoned != "" {
		return false
	}
	if err != nil {
		f.status.LastError = contract.FailureMessage(err)
		return false
	}
	return published
}

// The "published-before-regular" change: an execution on the regular
// path whose data is missing asks the store whether its token was
// published, as the fast path always did. Another execution of the same
// token (a copy of the request under another workflow ID, which anyone in
// the namespace can start) may have published it, and retention removed
// it with its state since. Executions recorded before the change failed
// there without asking.
const dataMissingChange = "published-before-regular"

// asksWhenDataMissing reports whether this execution asks the store before
// it answers Failed for missing data.
func (f *finalization) asksWhenDataMissing(ctx workflow.Context) bool {
	return f.local || workflow.GetVersion(ctx, dataMissingChange, workflow.DefaultVersion, 1) == 1
}

func isDataMissing(err error) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && app.Type() == contract.TypeDataMissing
}

// outcomeOf reads an activity's error: only a Rejected type is definite;
// everything else, timeouts and cancellations included, is Unknown.
func outcomeOf(err error) stores.Outcome {
	if err == nil {
		return stores.Published
	}
	if contract.Rejection(err) != nil {
		return stores.Rejected
	}
	return stores.Unknown
}

func (f *finalization) publication() stores.Publication {
	return stores.Publication{
		CheckpointID: f.req.CheckpointID(),
		Epoch:        f.req.Epoch,
		Owner:        f.req.Owner,
		Reference: stores.Reference{
			Handle:    f.status.HandleKey,
			Token:     f.req.Token(),
			Attempt:   f.status.Attempts,
			Savepoint: f.req.Savepoint,
		},
	}
}

// published reports the checkpoint to its job's coordinator, unless that
// was done alongside the publish or the worker's retention takes it, and
// ends.
func (f *finalization) published(ctx workflow.Context, reported bool) (contract.FinalizeResult, error) {
	f.setPhase(contract.Published)
	if !reported && f.reports() {
		f.reported(ctx, reportCall.execute(ctx, f.local, a.Report, f.report()))
	}
	return f.end(contract.Published, ""), nil
}

func (f *finalization) report() activities.ReportInput {
	return coordinatorReport(contract.PublishedReport{Cluster: f.req.Cluster, Job: f.req.Job, Epoch: f.req.Epoch, Checkpoint: f.req.Checkpoint})
}

// reported waits for a report to the coordinator; a failed one is only
// logged: the reference stands either way, and retention catches up on the
// next report.
func (f *finalization) reported(ctx workflow.Context, report workflow.Future) bool {
	if err := report.Get(ctx, nil); err != nil {
		f.status.LastError = contract.FailureMessage(err)
		workflow.GetLogger(ctx).Warn("report to coordinator failed", "error", err)
		return false
	}
	return true
}

// discard deletes the checkpoint's state; only reached after a definite
// rejection with no unknown before it, or after a fenced Absent.
func (f *finalization) discard(ctx workflow.Context, reason string) (contract.FinalizeResult, error) {
	f.setPhase(contract.Discarding)
	res, err := f.discardHandle(ctx)
	if f.abandoned != "" && err != nil {
		// A discard that finished before the abandon reached it stands.
		return f.endAbandoned(ctx, f.abandoned, " (abandoned while Discarding: the discard stopped; what is left of the state is kept)"), nil
	}
	if err != nil {
		// Only a handle it cannot trust stops the retries: keep what is there.
		f.status.LastError = contract.FailureMessage(err)
		return f.end(contract.Abandoned, "discard refused, state kept: "+contract.FailureMessage(err)), nil
	}
	switch {
	case res.Published:
		// The fence found the token's reference, or the tombstone that
		// removed it since: it was published, whatever the attempts said.
		return f.end(contract.Published, "found published when about to discard: "+reason), nil
	case res.Kept != "":
		return f.end(contract.Discarded, reason+"; its data stays: "+res.Kept), nil
	}
	return f.end(contract.Discarded, reason), nil
}

// discardHandle runs the discard, which retry-now and abandon reach
// (operatorSignalsChange).
func (f *finalization) discardHandle(ctx workflow.Context) (activities.DiscardResult, error) {
	var res activities.DiscardResult
	key := activities.HandleKey(f.status.HandleKey)
	if operatorReachable(ctx) {
		err := f.interruptible(ctx, discardCall, a.Discard, key, &res)
		return res, err
	}
	err := discardCall.execute(ctx, false, a.Discard, key).Get(ctx, &res)
	return res, err
}
