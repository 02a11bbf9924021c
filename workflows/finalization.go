package workflows

import (
	"time"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// finalization is the state of one FinalizeCheckpoint execution.
type finalization struct {
	ctx    workflow.Context
	req    contract.FinalizeRequest
	status contract.Status
	operator
	// version is the "local-fast-path" version this execution runs
	// (pathVersion); local: the fast path, from version 1 on.
	version workflow.Version
	local   bool
	// listed: the execution has upserted a phase of its own.
	listed bool
}

// reports: the finalization reports to its job's coordinator, which runs
// its retention; from version 2 on the worker that publishes does.
func (f *finalization) reports() bool { return f.version < backgroundRetentionVersion }

func newFinalization(ctx workflow.Context, req contract.FinalizeRequest) *finalization {
	now := workflow.Now(ctx)
	return &finalization{
		ctx: ctx,
		req: req,
		status: contract.Status{
			StartedAt: now, PhaseSince: now, Timings: map[contract.Phase]time.Duration{},
		},
		operator: newOperator(ctx),
	}
}

// start registers the status query and the identity's search attributes.
func (f *finalization) start() error {
	if err := workflow.SetQueryHandler(f.ctx, contract.StatusQuery, func() (contract.Status, error) { return f.status, nil }); err != nil {
		return err
	}
	memo := map[string]any{contract.MemoSummary: contract.Summary(f.req), contract.MemoContentHash: f.req.ContentHash()}
	if f.local && startedWith(f.ctx, memo) {
		return nil // the starter wrote it: an upsert would only add an event
	}
	return workflow.UpsertMemo(f.ctx, memo)
}

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

// setPhase records a phase change in the status and the search attributes.
func (f *finalization) setPhase(p contract.Phase) {
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
		contract.AttrCluster.ValueSet(f.req.Cluster), contract.AttrJob.ValueSet(f.req.Job),
		contract.AttrEpoch.ValueSet(int64(f.req.Epoch)), contract.AttrCheckpoint.ValueSet(int64(f.req.Checkpoint)),
		contract.AttrPhase.ValueSet(string(p)), contract.AttrPhaseSince.ValueSet(now),
	}
	if f.status.StoreKind != "" {
		upsert = append(upsert, contract.AttrStoreKind.ValueSet(f.status.StoreKind))
	}
	if err := workflow.UpsertTypedSearchAttributes(f.ctx, upsert...); err != nil {
		workflow.GetLogger(f.ctx).Warn("upsert search attributes", "error", err)
		return
	}
	f.listed = true
}

// unlisted: on the fast path, the phases its first workflow task passes
// through are not upserted, as no one could see them but the next phase:
// Persisting once the starter listed it so, and the first Publishing,
// which lasts a few seconds at most before Published or Verifying. From
// version 2 on, neither is Published after nothing else was listed: the
// close status and the result say it, and the stuck filter (Verifying)
// never matched it.
func (f *finalization) unlisted(p contract.Phase) bool {
	if !f.local {
		return false
	}
	switch p {
	case contract.Persisting:
		started, _ := workflow.GetTypedSearchAttributes(f.ctx).GetKeyword(contract.AttrPhase)
		return started == string(contract.Persisting)
	case contract.Publishing:
		return f.status.Attempts == 1
	case contract.Published:
		return !f.reports() && !f.listed
	}
	return false
}

// end records the terminal phase and the outcome metric.
func (f *finalization) end(p contract.Phase, reason string) contract.FinalizeResult {
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
	return contract.FinalizeResult{Phase: p, Attempts: f.status.Attempts, Reason: reason, HandleKey: f.status.HandleKey}
}

const (
	// MetricFinalizations counts finished finalizations by outcome.
	MetricFinalizations = "finalizer_finalizations"
	// MetricFinalizationLatency is the time from the trigger (the
	// execution's start) to the outcome, by outcome and store: a
	// histogram in seconds.
	MetricFinalizationLatency = "finalizer_finalization_latency"
)
