package reconcile

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// Why an orphan's state stays whatever its finalization says (I3: reported,
// never deleted).
const (
	KeepSavepoint     = "savepoint"
	KeepCorruptHandle = "handle corrupt: it says nothing safe to delete"
	KeepAgeUnknown    = "modification time unknown"
	// KeepUnknownJob: the store has no state and no key for the job (never
	// claimed, forgotten after retirement, or a store that lost its data).
	// A fence there would be written into a job that does not exist, and a
	// store that lost its data would have every handle look orphaned.
	KeepUnknownJob = "job unknown to the store"
	// KeepRetained and KeepPreviousIncarnation: the rules the reconciler
	// shares with a discarding retirement (activities.Retirement).
	KeepRetained            = activities.KeepRetained
	KeepPreviousIncarnation = activities.KeepPreviousIncarnation
	// keepYoung is formatted with the handle's write time.
	keepYoung = "written at %s, within the grace"
	// keepShared is formatted with the checkpoint whose data overlaps.
	keepShared = "data shared with published checkpoint %d"
)

// OrphanCandidate is a handle blob older than the grace period that no
// published reference points at.
type OrphanCandidate struct {
	blobstate.HandleInfo
	// Entry is what the store's key of the checkpoint holds.
	Entry     stores.Entry `json:"entry"`
	Savepoint bool         `json:"savepoint,omitempty"`
	// Keep, when set, says why the state stays whatever its finalization
	// says (one of the Keep constants, or shared data).
	Keep string `json:"keep,omitempty"`
	// Pending, when set, says that its job's discarding retirement let the
	// state go within the grace: it is discarded (by the retirement once
	// its finalization has closed, else by a run past the grace), not yet.
	Pending string `json:"pending,omitempty"`
}

// liveState is the state of a published reference: nothing an orphan's
// discard deletes may overlap it.
type liveState struct {
	checkpoint uint64
	handle     blobstate.Handle
}

// orphanCandidates lists the job's handle blobs and keeps those no
// published reference points at, old enough to be past any finalization in
// flight.
func (a *Activities) orphanCandidates(ctx context.Context, in InventoryInput, limit int,
	byID map[uint64]stores.Entry, live []liveState, inv *JobInventory) error {
	listing, err := a.Handles.ListJobHandles(ctx, in.JobID)
	if err != nil {
		return bucketError(err)
	}
	inv.Foreign = listing.Foreign
	for i, hi := range listing.Handles {
		e, ok := byID[hi.Checkpoint]
		if !ok {
			e = stores.Entry{Checkpoint: hi.Checkpoint}
		}
		if e.Reference != nil && e.Reference.Handle == hi.Key {
			continue // referenced: live, or dangling (reported as such)
		}
		pending := retiring(hi, e, in.GraceCutoff)
		if pending == "" && young(hi, in.GraceCutoff) {
			inv.Young++
			continue
		}
		if len(inv.Orphans) == limit {
			inv.Truncated = true
			continue
		}
		activity.RecordHeartbeat(ctx, "handles", i)
		c := OrphanCandidate{HandleInfo: hi, Entry: e, Pending: pending}
		h, err := a.States.ReadKey(ctx, hi.Key)
		switch {
		case errors.Is(err, blobstate.ErrNotFound):
			continue // discarded since the listing
		case errors.Is(err, blobstate.ErrCorrupt):
			c.Keep = KeepCorruptHandle
		case err != nil:
			return fmt.Errorf("read handle %s: %w", hi.Key, err)
		default:
			c.Savepoint = h.Savepoint
			c.Keep = keepReason(h, hi, e, inv.State, live)
		}
		inv.Orphans = append(inv.Orphans, c)
	}
	return nil
}

// young reports whether an unreferenced handle is inside its grace,
// written after the cutoff: its finalization may be in flight. (One its
// job's retirement removed after the cutoff is retiring: the grace runs
// from the retirement.)
func young(hi blobstate.HandleInfo, cutoff time.Time) bool {
	return !hi.ModTime.IsZero() && !hi.ModTime.Before(cutoff)
}

// retiring says why an unreferenced handle its job's discarding retirement
// let go within the grace waits ("retired at ..., within the grace"), ""
// for any other handle. It is pending discard, not in flight: a dry run
// lists it as such rather than counting it with the young handles.
func retiring(hi blobstate.HandleInfo, e stores.Entry, cutoff time.Time) string {
	token := contract.Token(hi.CheckpointID, hi.Epoch)
	if t := activities.Retirement(e, token); t == nil || t.Reason != stores.ReasonRetired {
		return ""
	}
	return activities.RetirementKeeps(e, token, cutoff)
}

func isRetained(e stores.Entry, token string) bool {
	t := activities.Retirement(e, token)
	return t != nil && t.Reason == stores.ReasonRetained
}

// keepReason says why an orphan's state must stay, "" when only its
// finalization decides.
func keepReason(h blobstate.Handle, hi blobstate.HandleInfo, e stores.Entry, job stores.JobState, live []liveState) string {
	switch {
	case h.Savepoint:
		return KeepSavepoint
	case hi.ModTime.IsZero():
		return KeepAgeUnknown
	case h.Epoch <= job.ForgottenEpoch && activities.Retirement(e, contract.Token(h.CheckpointID, h.Epoch)) == nil:
		// The new incarnation's directories, unless the key still holds
		// the retirement's own tombstone (DiscardOrphan).
		return KeepPreviousIncarnation
	case job.Owner == "" && !job.Retired && e.Absent():
		return KeepUnknownJob
	case isRetained(e, contract.Token(h.CheckpointID, h.Epoch)):
		return KeepRetained
	}
	for _, l := range live {
		if overlaps(h, l.handle) {
			return fmt.Sprintf(keepShared, l.checkpoint)
		}
	}
	return ""
}

// overlaps reports whether discarding h could delete anything of live:
// one exclusive prefix inside the other, or live's metadata under h's.
func overlaps(h, live blobstate.Handle) bool {
	p := h.ExclusivePrefix
	if p == "" {
		return false
	}
	if q := live.ExclusivePrefix; q != "" && (strings.HasPrefix(p, q) || strings.HasPrefix(q, p)) {
		return true
	}
	return strings.HasPrefix(live.MetadataKey, p)
}
