package activities

import (
	"context"
	"time"
)

// HeartbeatEvery is how often a long activity heartbeats while it works;
// the workflows' heartbeat timeouts (HeartbeatTimeout) are several times
// longer.
const HeartbeatEvery = 5 * time.Second

// HeartbeatTimeout is the heartbeat timeout workflows schedule the
// activities that heartbeat with: a worker that dies in one is noticed
// within it, not after the minutes a long delete or listing may take.
const HeartbeatTimeout = 30 * time.Second

// KeepAlive heartbeats now and every HeartbeatEvery until the returned
// stop is called, so that a worker that dies in the middle of a long
// delete or listing is noticed within the heartbeat timeout, and the
// retry starts on another worker, instead of after the start-to-close
// timeout. The heartbeat says only that this worker is alive: the call
// it covers has no progress to report. Local activities ignore it.
func KeepAlive(ctx context.Context) (stop func()) {
	heartbeat(ctx)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(HeartbeatEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				heartbeat(ctx)
			case <-done:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}
