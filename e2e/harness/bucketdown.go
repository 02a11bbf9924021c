package harness

import (
	"context"
	"errors"
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/activities"
	"github.com/checkpoint-finalizer/finalizer/stores/blobstate"
)

// ErrBucketDown is the I/O failure BucketDown answers.
var ErrBucketDown = errors.New("bucket unreachable (injected)")

// BucketDown is a state bucket that never answers: every read and write
// fails with an error that says nothing about the content, so a
// finalization retries its persist for ever.
type BucketDown struct {
	activities.States
}

func (BucketDown) CheckData(context.Context, blobstate.Handle) error {
	return fmt.Errorf("check data: %w", ErrBucketDown)
}

func (BucketDown) Write(context.Context, blobstate.Handle) (string, error) {
	return "", fmt.Errorf("write handle: %w", ErrBucketDown)
}
