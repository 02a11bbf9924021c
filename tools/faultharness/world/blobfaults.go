package world

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/internal/pace"
)

// blobFirstHitTimeout bounds the wait for the first request a blob fault
// can hit: deletes come in bursts (discards, subsumption), not steadily.
const blobFirstHitTimeout = 15 * time.Second

// fault fails the workers' writes or deletes to the state bucket for
// a few seconds after the first one it hits: the persist and discard
// activities fail, or succeed without knowing it, and Temporal retries
// them. A write is the same bytes under the same key and a delete of what
// is gone succeeds, so a retry must converge; a delete that keeps failing
// leaves state at rest, which the check reports (I3), never a loss.
func (w *blobWorld) fault(ctx context.Context, kind FaultKind, rng *rand.Rand) (int, string, error) {
	var (
		method = http.MethodPut
		mode   blobMode
	)
	switch kind {
	case BlobWriteFailure:
		mode = []blobMode{blob5xx, blobDropRequest}[rng.IntN(2)]
	case BlobWriteReplyLost:
		mode = blobDropReply
	case BlobDeleteFailure:
		method = http.MethodDelete
		mode = []blobMode{blob5xx, blobDropRequest, blobDropReply}[rng.IntN(3)]
	default:
		return 0, "", fmt.Errorf("not a blob fault kind: %s", kind)
	}
	hold := pace.Between(rng, 2*time.Second, 4*time.Second)
	rule, disarm := w.arm(method, mode)
	select {
	case <-rule.hit:
		pace.Sleep(ctx, hold)
	case <-time.After(blobFirstHitTimeout):
	case <-ctx.Done():
	}
	hits := disarm()
	return hits, fmt.Sprintf("%s %s: %d request(s) in %s after the first", method, mode, hits, hold.Round(time.Millisecond)), nil
}
