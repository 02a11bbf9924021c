package activities

import (
	"context"

	"go.temporal.io/sdk/activity"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// VerifyInput names the attempt to verify.
type VerifyInput struct {
	stores.CheckpointID
	Token   string `json:"token"`
	Attempt uint32 `json:"attempt"`
}

// Verify reads the key linearizably and fences it when it does not hold
// the token. Every failure is retryable: the workflow keeps verifying, with
// backoff, for as long as the store does not answer.
func (a *Activities) Verify(ctx context.Context, in VerifyInput) (stores.Verdict, error) {
	activity.RecordHeartbeat(ctx, in.Attempt)
	verdict, err := a.References.Verify(ctx, in.CheckpointID, in.Token, in.Attempt)
	CountStoreCall(ctx, "verify", stores.OutcomeOf(err))
	if err != nil {
		return stores.VerdictUnknown, Translate(err)
	}
	activity.GetMetricsHandler(ctx).WithTags(map[string]string{"verdict": verdict.String()}).Counter(MetricVerdicts).Inc(1)
	return verdict, nil
}
