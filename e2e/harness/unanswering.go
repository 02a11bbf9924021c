package harness

import (
	"context"
	"errors"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// ErrUnreachable is the cause Unanswering reports.
var ErrUnreachable = errors.New("harness: store unreachable")

// Unanswering is a store whose publishes and verifies never get an answer
// (Unknown, every time): a finalization over it parks in Verifying.
type Unanswering struct {
	activities.References
}

func (s Unanswering) Publish(context.Context, stores.Publication) error {
	return stores.Unknownf(ErrUnreachable, "publish")
}

func (s Unanswering) Verify(context.Context, stores.CheckpointID, string, uint32) (stores.Verdict, error) {
	return stores.VerdictUnknown, stores.Unknownf(ErrUnreachable, "verify")
}
