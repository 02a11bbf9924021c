package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// finalization is the state of one FinalizeCheckpoint execution.
type finalization struct {
	ctx      workflow.Context
	req      FinalizeRequest
	status   Status
	retryNow workflow.ReceiveChannel
	abandon  workflow.ReceiveChannel
	// abandoned is the operator's reason, once one abandoned the finalization.
	abandoned string
	// local: this execution runs the fast path (see fastPath).
	local bool
}

func newFinalization(ctx workflow.Context, req FinalizeRequest) *finalization {
	now := workflow.Now(ctx)
	return &finalization{
		ctx: ctx,
		req: req,
		status: Status{
			StartedAt: now, PhaseSince: now, Timings: map[Phase]time.Duration{},
		},
		retryNow: workflow.GetSignalChannel(ctx, RetryNowSignal),
		abandon:  workflow.GetSignalChannel(ctx, AbandonSignal),
	}
}

// start registers the status query and the identity's search attributes.
func (f *finalization) start() error {
	if err := workflow.SetQueryHandler(f.ctx, StatusQuery, func() (Status, error) { return f.status, nil }); err != nil {
		return err
	}
	memo := map[string]any{MemoSummary: Summary(f.req), MemoContentHash: f.req.ContentHash()}
	if f.local && startedWith(f.ctx, memo) {
		return nil // the starter wrote it: an upsert would only add an event
	}
	return workflow.UpsertMemo(f.ctx, memo)
}

// Memo keys of a finalization, as its starter and the workflow write them.
const (
	MemoSummary     = "summary"
	MemoContentHash = "contentHash"
)

// startedWith reports whether the execution's start memo holds want.
func startedWith(ctx workflow.Context, want map[string]any) bool {
	fields := workflow.GetInfo(ctx).Memo.GetFields()
	dc := converter.GetDefaultDataConverter()
	for k, v := range want {
		var got string
		p, ok := fields[k]
		if !ok || dc.FromPayload(p, &got) != nil || got != v {
			return false
		}
	}
	return true
}

// Summary is the memo summary of a finalization, as the Web UI lists it.
func Summary(r FinalizeRequest) string {
	kind := "checkpoint"
	if r.Savepoint {
		kind = "savepoint"
	}
	return fmt.Sprintf("%s %d of %s/%s (epoch %d)", kind, r.Checkpoint, r.Cluster, r.Job, r.Epoch)
}

// setPhase records a phase change in the status and the search attributes.
func (f *finalization) setPhase(p Phase) {
	if f.local && f.status.Phase == p {
		return // end after published or discard: listed already
	}
	now := workflow.Now(f.ctx)
	if f.status.Phase != "" {
		f.status.Timings[f.status.Phase] += now.Sub(f.status.PhaseSince)
	}
	f.status.Phase, f.status.PhaseSince = p, now
	f.showDetails()
	workflow.GetLogger(f.ctx).Info("phase", "phase", p, "attempt", f.status.Attempts)
	if f.unlisted(p) {
		return
	}
	upsert := []temporal.SearchAttributeUpdate{
		AttrCluster.ValueSet(f.req.Cluster), AttrJob.ValueSet(f.req.Job),
		AttrEpoch.ValueSet(int64(f.req.Epoch)), AttrCheckpoint.ValueSet(int64(f.req.Checkpoint)),
		AttrPhase.ValueSet(string(p)), AttrPhaseSince.ValueSet(now),
	}
	if f.status.StoreKind != "" {
		upsert = append(upsert, AttrStoreKind.ValueSet(f.status.StoreKind))
	}
	if err := workflow.UpsertTypedSearchAttributes(f.ctx, upsert...); err != nil {
		workflow.GetLogger(f.ctx).Warn("upsert search attributes", "error", err)
	}
}

// unlisted: on the fast path, the phases its first workflow task passes
// through are not upserted, as no one could see them but the next phase:
// Persisting once the starter listed it so, and the first Publishing,
// which lasts a few seconds at most before Published or Verifying.
func (f *finalization) unlisted(p Phase) bool {
	if !f.local {
		return false
	}
	switch p {
	case Persisting:
		started, _ := workflow.GetTypedSearchAttributes(f.ctx).GetKeyword(AttrPhase)
		return started == string(Persisting)
	case Publishing:
		return f.status.Attempts == 1
	}
	return false
}

// end records the terminal phase and the outcome metric.
func (f *finalization) end(p Phase, reason string) FinalizeResult {
	f.setPhase(p)
	metrics := workflow.GetMetricsHandler(f.ctx)
	metrics.WithTags(map[string]string{"outcome": string(p)}).Counter(MetricFinalizations).Inc(1)
	store := f.status.StoreKind
	if store == "" {
		store = "none" // ended before it reached a store (Failed)
	}
	// From the trigger: the execution's start, not this run's first task.
	latency := workflow.Now(f.ctx).Sub(workflow.GetInfo(f.ctx).WorkflowStartTime)
	metrics.WithTags(map[string]string{"outcome": string(p), "store": store}).Timer(MetricFinalizationLatency).Record(latency)
	return FinalizeResult{Phase: p, Attempts: f.status.Attempts, Reason: reason, HandleKey: f.status.HandleKey}
}

const (
	// MetricFinalizations counts finished finalizations by outcome.
	MetricFinalizations = "finalizer_finalizations"
	// MetricFinalizationLatency is the time from the trigger (the
	// execution's start) to the outcome, by outcome and store: a
	// histogram in seconds.
	MetricFinalizationLatency = "finalizer_finalization_latency"
)
