package client

import (
	"context"
	"time"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// DefaultProgressInterval is how often WaitProgress polls when asked for 0.
const DefaultProgressInterval = 500 * time.Millisecond

// WaitProgress is Wait that also polls Status every interval and calls
// progress (from one goroutine, never concurrently) each time the phase,
// attempts, verifications, fences or last error changed. A failed poll
// (no worker to answer the query, say) is logged and skipped: progress is a
// courtesy, the result is what counts. A finalization that ends between
// two polls may skip phases; the result is always complete.
func (f *Finalization) WaitProgress(ctx context.Context, interval time.Duration, progress func(contract.Status)) (contract.FinalizeResult, error) {
	if interval <= 0 {
		interval = DefaultProgressInterval
	}
	type outcome struct {
		res contract.FinalizeResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := f.Wait(ctx)
		done <- outcome{res, err}
	}()

	tick := time.NewTicker(interval)
	defer tick.Stop()
	var last progressKey
	poll := func() {
		st, err := f.Status(ctx)
		if err != nil {
			f.c.log.Debug("progress poll failed", "workflowId", f.WorkflowID, "error", err)
			return
		}
		if k := keyOf(st); k != last {
			last = k
			progress(st)
		}
	}
	poll()
	for {
		select {
		case o := <-done:
			return o.res, o.err
		case <-tick.C:
			poll()
		}
	}
}

// progressKey is what a progress report is about; the timings change on
// every phase change anyway.
type progressKey struct {
	phase                 contract.Phase
	attempts              uint32
	verifications, fences int
	lastError             string
}

func keyOf(st contract.Status) progressKey {
	return progressKey{st.Phase, st.Attempts, st.Verifications, st.Fences, st.LastError}
}
