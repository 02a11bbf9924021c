package contract

import (
	"errors"
	"time"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// FinalizeRequest is the input of FinalizeCheckpoint: pointers and
// checksums, never state bytes. The job manager has already written the
// checkpoint's metadata and data to the state bucket.
type FinalizeRequest struct {
	Cluster string `json:"cluster"`
	Job     string `json:"job"`
	Epoch   uint64 `json:"epoch"`
	// Owner is the claimant of Epoch, as its ClaimEpoch named it (e.g. the
	// job manager's leader session ID). The publish is conditional on the
	// whole claim, so that a request naming the standing epoch under
	// another owner takes no checkpoint of the job.
	Owner      string `json:"owner"`
	Checkpoint uint64 `json:"checkpoint"`
	// MetadataKey is the bucket key of the checkpoint's metadata file.
	MetadataKey    string `json:"metadataKey"`
	MetadataSHA256 string `json:"metadataSha256"`
	// ExclusivePrefix holds the data only this checkpoint owns
	// ("<...>/<job>/chk-<id>/"); shared files live elsewhere and are never
	// discarded by this checkpoint.
	ExclusivePrefix string `json:"exclusivePrefix,omitempty"`
	Savepoint       bool   `json:"savepoint,omitempty"`
	// MaxPublishAttempts bounds publishing: after a fenced Absent the
	// workflow republishes until this many attempts, then discards.
	MaxPublishAttempts uint32 `json:"maxPublishAttempts,omitempty"`
}

// CheckpointID is the request's store identity.
func (r FinalizeRequest) CheckpointID() stores.CheckpointID {
	return stores.CheckpointID{JobID: stores.JobID{Cluster: r.Cluster, Job: r.Job}, Checkpoint: r.Checkpoint}
}

// Validate checks the request; an invalid one ends Failed with nothing written.
func (r FinalizeRequest) Validate() error {
	if err := stores.ValidateStateHandle(r.CheckpointID(), r.Epoch, r.MetadataKey, r.MetadataSHA256, r.ExclusivePrefix, r.Savepoint); err != nil {
		return err
	}
	if r.Epoch == 0 {
		return &stores.InvalidError{Field: "epoch", Rule: "must be at least 1"}
	}
	return ValidateOwner(r.Owner)
}

// errNoOwner: a request names no owner.
var errNoOwner = &stores.InvalidError{Field: "owner", Rule: "must name the epoch's claimant, as its ClaimEpoch did"}

// ValidateOwner checks a request's claimant, the last check of each
// request's Validate (MissingOwner relies on it).
func ValidateOwner(owner string) error {
	if owner == "" {
		return errNoOwner
	}
	return stores.ValidateOwner(owner)
}

// MissingOwner reports whether err, from a request's Validate, says only
// that the request names no owner: every other field is valid. Executions
// started before requests named their owner replay with it.
func MissingOwner(err error) bool { return errors.Is(err, errNoOwner) }

// WorkflowID derives the execution's ID from the finalization's identity,
// so a repeated trigger reaches the same execution.
func (r FinalizeRequest) WorkflowID() string {
	return FinalizationID(r.CheckpointID(), r.Epoch)
}

// Token identifies this finalization's reference in the store.
func (r FinalizeRequest) Token() string {
	return Token(r.CheckpointID(), r.Epoch)
}

// MaxAttempts is the bound on publish attempts: MaxPublishAttempts, or
// DefaultMaxPublishAttempts when the request names none.
func (r FinalizeRequest) MaxAttempts() uint32 {
	if r.MaxPublishAttempts == 0 {
		return DefaultMaxPublishAttempts
	}
	return r.MaxPublishAttempts
}

// Phase is where a finalization is.
type Phase string

const (
	Persisting Phase = "Persisting"
	Publishing Phase = "Publishing"
	Verifying  Phase = "Verifying"
	Published  Phase = "Published"
	Discarding Phase = "Discarding"
	Discarded  Phase = "Discarded"
	// Abandoned: its state is kept and an operator decides: they ended it
	// (the abandon signal), or its discard was refused because the handle
	// read back could not be trusted (corrupt, or outside the layout).
	Abandoned Phase = "Abandoned"
	// Failed: the request was invalid or its data missing; nothing was published.
	Failed Phase = "Failed"
	// Subsuming is the one phase of a SubsumeCheckpoint execution (the
	// coordinator's removals before the fast path) while it runs.
	Subsuming Phase = "Subsuming"
)

// PublishedBeforeReason is the reason of a finalization that found its
// data missing and its token published: an earlier run of its workflow
// task, or another execution of the same request, published it, and
// retention removed it with its state since.
const PublishedBeforeReason = "published before (by an earlier run of this workflow task or another execution of the same request), then subsumed with its state"

// RunningPhases are the phases an execution can stay in, each for as long
// as a store or the bucket does not answer: the stuck filter matches them
// all, never only Verifying.
func RunningPhases() []Phase {
	return []Phase{Persisting, Publishing, Verifying, Discarding, Subsuming}
}

// ReadsOperatorSignals reports whether a running finalization in this
// phase reads the retry-now and abandon signals: every phase it can stay in
// for as long as a store or the bucket fails (Persisting, Verifying,
// Discarding). Publishing ends on its own within seconds; Subsuming is the
// coordinator's. Executions a worker started before this rule read them only
// while Verifying.
func (p Phase) ReadsOperatorSignals() bool {
	switch p {
	case Persisting, Verifying, Discarding:
		return true
	}
	return false
}

// Terminal reports whether a finalization in this phase has ended.
func (p Phase) Terminal() bool {
	switch p {
	case Published, Discarded, Abandoned, Failed:
		return true
	}
	return false
}

// FinalizeResult is the result of FinalizeCheckpoint. Acknowledge the
// checkpoint to sinks only when Phase is Published.
type FinalizeResult struct {
	Phase     Phase  `json:"phase"`
	Attempts  uint32 `json:"attempts"`
	Reason    string `json:"reason,omitempty"`
	HandleKey string `json:"handleKey,omitempty"`
}

// Status answers the status query of a finalization.
type Status struct {
	Phase      Phase     `json:"phase"`
	PhaseSince time.Time `json:"phaseSince"`
	StartedAt  time.Time `json:"startedAt"`
	// Attempts is the number of publish attempts so far.
	Attempts uint32 `json:"attempts"`
	// Verifications counts verify activities started (each retries internally).
	Verifications int    `json:"verifications"`
	Fences        int    `json:"fences"`
	LastError     string `json:"lastError,omitempty"`
	HandleKey     string `json:"handleKey,omitempty"`
	StoreKind     string `json:"storeKind,omitempty"`
	// Timings is the time spent in each phase left so far.
	Timings map[Phase]time.Duration `json:"timings"`
}

// Clusters is the cluster the request touches (the worker's tenant gate).
func (r FinalizeRequest) Clusters() []string { return []string{r.Cluster} }
