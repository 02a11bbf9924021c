package stores

import (
	"context"
	"time"
)

// ReferenceStore is the HA store of checkpoint references. Mutating calls
// return nil (Published), a definite rejection or an Unknown error; see the
// package documentation. Implementations validate input before anything is
// sent and are safe for concurrent use.
type ReferenceStore interface {
	// ClaimEpoch makes epoch the job's current leadership incarnation,
	// fencing every older one. Claiming the standing (epoch, owner) again is
	// Published.
	ClaimEpoch(ctx context.Context, job JobID, epoch uint64, owner string) error
	// Publish writes a reference, conditional on the epoch (and on the
	// owner, when the publication names one) being the standing claim and
	// on the checkpoint being above the job's watermark.
	Publish(ctx context.Context, p Publication) error
	// Verify reads the key linearizably; when it does not hold token it
	// fences every attempt up to attempt and answers Absent. Any error is
	// VerdictUnknown. It is not conditional on the epoch: a deposed leader's
	// finalization must still be able to resolve.
	Verify(ctx context.Context, id CheckpointID, token string, attempt uint32) (Verdict, error)
	// Subsume turns the checkpoint's key into a tombstone and raises the
	// job's watermark to it, conditional on the epoch.
	Subsume(ctx context.Context, id CheckpointID, epoch uint64) error
	// Retire tombstones every published reference of the job (reason
	// retained when keep, else retired) and closes it to further claims
	// until CollectTombstones forgets it. It is linearizable with Publish:
	// once it returns, no publish of the job succeeds.
	Retire(ctx context.Context, job JobID, epoch uint64, keep bool) error
	// CollectTombstones deletes the job's tombstones written before
	// olderThan (at or below its watermark, or any of a retired job), never
	// a kept record (Tombstone.Kept), and returns how many went. A retired job left without keys is forgotten:
	// only its epoch floor remains (JobState.Forgotten). Nothing is ever
	// deleted and recreated, so a write prepared against the old job can
	// never pass a version check of the new one.
	CollectTombstones(ctx context.Context, job JobID, olderThan time.Time) (int, error)

	// CollectSubsumed deletes the checkpoint's key if it holds the
	// subsumed tombstone of token, once the caller knows that token's
	// finalization has closed (DecideCollectSubsumed). Nil when the key
	// holds nothing; ErrConflict when it holds anything else.
	CollectSubsumed(ctx context.Context, id CheckpointID, token string) error
	// Release lets the kept state of token at the checkpoint's key go, an
	// operator's decision: its record (retained, or a savepoint's) becomes
	// a retired tombstone (DecideRelease). Nil when the key already holds
	// token's retired tombstone; ErrConflict when it holds anything else.
	Release(ctx context.Context, id CheckpointID, token string) error

	// Read returns the entry of one checkpoint key, Absent if none.
	Read(ctx context.Context, id CheckpointID) (Entry, error)
	// ReadJob returns the job's state, the zero JobState if never claimed.
	ReadJob(ctx context.Context, job JobID) (JobState, error)
	// List returns the job's published references in checkpoint order,
	// tombstones skipped.
	List(ctx context.Context, job JobID) ([]Entry, error)
	// ListEntries returns every key of the job, published references and
	// tombstones with their reasons and Since, in checkpoint order, read
	// linearizably.
	ListEntries(ctx context.Context, job JobID) ([]Entry, error)

	Close() error
}

// ValidateClaim checks a claim's input.
func ValidateClaim(job JobID, epoch uint64, owner string) error {
	if err := job.Validate(); err != nil {
		return err
	}
	if err := validateEpoch(epoch); err != nil {
		return err
	}
	return ValidateOwner(owner)
}

// ValidateOwner checks a claimant's name.
func ValidateOwner(owner string) error { return validateText("owner", owner, MaxOwnerLength) }

// ValidateVerify checks a verification's input.
func ValidateVerify(id CheckpointID, token string, attempt uint32) error {
	if err := id.Validate(); err != nil {
		return err
	}
	if err := validateText("token", token, MaxTokenLength); err != nil {
		return err
	}
	if attempt == 0 {
		return invalid("attempt", "must be at least 1")
	}
	return nil
}

// ValidateIdentity checks a finalization's identity, a checkpoint and an
// epoch: the input of every epoch-conditional call on one checkpoint.
func ValidateIdentity(id CheckpointID, epoch uint64) error {
	if err := id.Validate(); err != nil {
		return err
	}
	return validateEpoch(epoch)
}

// ValidateTokenKey checks the input of a call on one key that names the
// token it expects there (an early collection, a quarantine, a release).
func ValidateTokenKey(id CheckpointID, token string) error {
	if err := id.Validate(); err != nil {
		return err
	}
	return validateText("token", token, MaxTokenLength)
}

// ValidateRetire checks a retirement's input.
func ValidateRetire(job JobID, epoch uint64) error {
	if err := job.Validate(); err != nil {
		return err
	}
	return validateEpoch(epoch)
}

func validateEpoch(epoch uint64) error {
	if epoch == 0 {
		return invalid("epoch", "must be at least 1")
	}
	return nil
}
