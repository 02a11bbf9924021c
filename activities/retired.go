package activities

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// HandleLister lists a job's handle blobs in the state bucket.
type HandleLister interface {
	ListJobHandles(ctx context.Context, job stores.JobID) (blobstate.Listing, error)
}

// RetiredInput names a discarding retirement: the job and the epoch that
// retired it.
type RetiredInput struct {
	stores.JobID
	Epoch uint64 `json:"epoch"`
}

// RetiredResult says what DiscardRetired did.
type RetiredResult struct {
	// Discarded counts the checkpoints whose state went (a retry counts
	// again the ones an earlier try finished).
	Discarded int `json:"discarded"`
	// Kept lists the retired checkpoints whose state stays, and why (a
	// savepoint's an operator released, a handle that cannot be trusted,
	// another reference in the directory): the reconciler reports them.
	Kept []KeptState `json:"kept,omitempty"`
	// Left are the finalizations still running when a newer claim already
	// stood: their checkpoints' state is left to the reconciler.
	Left []string `json:"left,omitempty"`
	// NotWired: the worker has no handle listing or no way to ask Temporal
	// about finalizations; everything is left to the reconciler.
	NotWired bool `json:"notWired,omitempty"`
}

// TypeFinalizationsRunning is the retryable failure of a DiscardRetired
// that waits for finalizations to close; its message names them.
const TypeFinalizationsRunning = "FinalizationsRunning"

// ErrFinalizationsRunning: a retired checkpoint's finalization has not
// closed yet, so its state waits.
var ErrFinalizationsRunning = errors.New("finalizations of retired checkpoints still running")

// DiscardRetired discards the state of the checkpoints a discarding
// retirement let go, as Flink does at a cancel with DELETE_ON_CANCELLATION,
// without waiting for a reconcile run (docs/design.md, "A discarding
// retirement discards what it let go, once its finalization has closed"). It lists the job's handles in the
// bucket and takes only those of the retirement's epoch or below whose key,
// read linearizably, holds a retired tombstone of the handle's own token:
// the store's proof that the state may go and that no reference can land on
// that key again. Anything else (no tombstone, another token's, a retained
// one, a savepoint's) is left to the reconciler's judgement, as before. A
// handle whose finalization Temporal says is closed, or no longer knows,
// is discarded through the guard by the reconciler's own rules
// (Guard.Incarnation, Guard.DiscardUnreferenced), with no grace: the
// retirement itself is the decision the grace waits for, and its tombstone
// stays for the token's late verifies (I7).
//
// A finalization still running keeps its checkpoint's state: the activity
// discards the rest and fails retryably, naming it, so that the retirement
// waits with backoff, visibly. It waits only while its retirement is the
// job's standing state. Once a newer claim stands (the job resubmitted
// under its ID) or the job was forgotten, the old epochs are deposed and
// their running finalizations can never publish; waiting on one (parked in
// Verifying, say) could last forever and would hold back the ended job's
// cleanup, which waits for this retirement, for the sake of the new
// incarnation's directories. Their state is then left to the reconciler,
// which discards it once they closed, past its grace (Left). Idempotent:
// a handle already gone is success.
func (a *Activities) DiscardRetired(ctx context.Context, in RetiredInput) (RetiredResult, error) {
	defer KeepAlive(ctx)()
	var res RetiredResult
	if a.Handles == nil || a.Finalizations == nil {
		loggerOf(ctx).Warn("discarding retirement without a handle listing or finalizations; its state is left to the reconciler", "job", in.JobID)
		res.NotWired = true
		return res, nil
	}
	if err := in.JobID.Validate(); err != nil {
		return res, Translate(err) // definite: a retry would be refused alike
	}
	guard := a.guard()
	listing, err := a.Handles.ListJobHandles(ctx, in.JobID)
	if err != nil {
		return res, fmt.Errorf("list handles of %s: %w", in.JobID, err)
	}
	var running []string
	for i, hi := range listing.Handles {
		heartbeat(ctx, i)
		if hi.Epoch > in.Epoch {
			continue // a later claim's: not this retirement's
		}
		id, err := a.retiredFinalization(ctx, guard, hi)
		switch {
		case err != nil:
			return res, err
		case id == "":
			continue
		}
		st, err := a.Finalizations.Finalization(ctx, id)
		switch {
		case err != nil:
			return res, err
		case st.Running:
			running = append(running, id)
			continue
		}
		if err := a.discardRetired(ctx, guard, hi, &res); err != nil {
			return res, err
		}
	}
	if len(running) == 0 {
		return res, nil
	}
	job, err := guard.readJob(ctx, in.JobID)
	if err != nil {
		return res, err
	}
	if !job.Retired || job.Epoch != in.Epoch {
		loggerOf(ctx).Warn("job claimed or forgotten since its retirement; the state of its running finalizations is left to the reconciler", "job", in.JobID, "finalizations", running)
		res.Left = running
		return res, nil
	}
	err = fmt.Errorf("%w: %s", ErrFinalizationsRunning, strings.Join(running, ", "))
	return res, temporal.NewApplicationErrorWithCause(err.Error(), TypeFinalizationsRunning, err)
}

// retiredFinalization returns the workflow ID of the handle's finalization
// when its key holds the handle's own retired tombstone, "" when the key
// holds anything else.
func (a *Activities) retiredFinalization(ctx context.Context, guard Guard, hi blobstate.HandleInfo) (string, error) {
	e, err := guard.read(ctx, hi.CheckpointID)
	if err != nil {
		return "", err
	}
	t := Retirement(e, contract.Token(hi.CheckpointID, hi.Epoch))
	if t == nil || t.Reason != stores.ReasonRetired {
		return "", nil
	}
	return contract.FinalizationID(hi.CheckpointID, hi.Epoch), nil
}

// discardRetired discards one retired handle whose finalization has
// closed, by the reconciler's rules.
func (a *Activities) discardRetired(ctx context.Context, guard Guard, hi blobstate.HandleInfo, res *RetiredResult) error {
	keep, err := guard.Incarnation(ctx, hi.CheckpointID, hi.Epoch)
	if err != nil {
		return err
	}
	if keep == "" {
		var u Unreferenced
		u, err = guard.DiscardUnreferenced(ctx, hi.Key, time.Time{})
		keep = u.Kept
		if u.Referenced {
			keep = "its own reference stands"
		}
	}
	if why := KeptBy(err); why != "" {
		keep, err = why, nil
	}
	switch {
	case err != nil:
		return err // as the guard failed: its type says whether to retry
	case keep != "":
		res.Kept = append(res.Kept, KeptState{Checkpoint: hi.Checkpoint, Reason: keep})
	default:
		res.Discarded++
	}
	return nil
}
