package activities

import (
	"context"
	"fmt"

	"go.temporal.io/sdk/activity"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// VerifyInput names the attempt to verify.
type VerifyInput struct {
	stores.CheckpointID
	Token   string `json:"token"`
	Attempt uint32 `json:"attempt"`
	// Epoch is the finalization's: Verify derives the token from it and
	// decides on it whether it may fence at all.
	Epoch uint64 `json:"epoch,omitempty"`
	// Owner is the finalization's claimant of Epoch: a request naming the
	// standing epoch under another owner shares the leader's token, and
	// must not fence it out. Empty for finalizations started before
	// requests named their owner.
	Owner string `json:"owner,omitempty"`
}

// Verify reads the key linearizably and fences it when it does not hold
// the token. Only the standing claim fences (stores.DecideFence): another's
// fence could keep the standing leader from publishing, and would make a
// directory it never wrote look like its own to its discard. Another
// party's attempts cannot land: a deposed or forgotten epoch's never
// (claims only rise), nor the standing epoch's under another owner
// (publishes are conditional on the owner), and an unclaimed epoch's only
// under a claim of that very epoch, whose own finalization of the
// checkpoint has the same workflow ID and token; each answers Absent
// without a fence, and its state is kept (Guard).
// Every failure is retryable: the workflow keeps verifying, with backoff,
// for as long as the store does not answer.
func (a *Activities) Verify(ctx context.Context, in VerifyInput) (stores.Verdict, error) {
	activity.RecordHeartbeat(ctx, in.Attempt)
	if err := a.verifiable(in); err != nil {
		return stores.VerdictUnknown, Translate(err)
	}
	verdict, err := a.verify(ctx, in)
	if err != nil {
		return stores.VerdictUnknown, Translate(err)
	}
	activity.GetMetricsHandler(ctx).WithTags(map[string]string{"verdict": verdict.String()}).Counter(MetricVerdicts).Inc(1)
	if verdict == stores.Present && a.Retention != nil {
		a.Retention.Enqueue(in.JobID) // published after all: retention as after a publish
	}
	return verdict, nil
}

// verifiable refuses an input whose token is not its epoch's.
func (a *Activities) verifiable(in VerifyInput) error {
	if err := stores.ValidateIdentity(in.CheckpointID, in.Epoch); err != nil {
		return err
	}
	if want := contract.Token(in.CheckpointID, in.Epoch); in.Token != want {
		return &stores.InvalidError{Field: "token", Rule: fmt.Sprintf("%q is not the token of epoch %d's finalization of %s (%q)", in.Token, in.Epoch, in.CheckpointID, want)}
	}
	return nil
}

func (a *Activities) verify(ctx context.Context, in VerifyInput) (stores.Verdict, error) {
	// The job first: a claim it shows was made before the key is read, so
	// no publish of an epoch it deposed can land after that read.
	job, err := a.References.ReadJob(ctx, in.JobID)
	CountStoreCall(ctx, "read", stores.OutcomeOf(err))
	if err != nil {
		return stores.VerdictUnknown, err
	}
	if stores.DecideFence(job, in.Epoch, in.Owner, in.Checkpoint) == nil {
		verdict, err := a.References.Verify(ctx, in.CheckpointID, in.Token, in.Attempt)
		CountStoreCall(ctx, "verify", stores.OutcomeOf(err))
		return verdict, err
	}
	e, err := a.References.Read(ctx, in.CheckpointID)
	CountStoreCall(ctx, "read", stores.OutcomeOf(err))
	switch {
	case err != nil:
		return stores.VerdictUnknown, err
	case e.WasPublished(in.Token):
		return stores.Present, nil
	}
	return stores.Absent, nil
}
