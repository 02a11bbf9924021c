package workflows

import (
	"time"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/checkpoint-finalizer/finalizer/contract"
)

// The "local-fast-path" change has two versions after the original one.
//
// Version 1, the fast path, runs the steps of an uneventful finalization
// as local activities: persist the handle, the first publish attempt and
// the report to the coordinator all run in the workflow task that started
// the finalization, which a worker in the triggering process can receive
// by eager start. Nothing the protocol decides changes:
//   - a local activity's outcome is recorded before the workflow acts on
//     it, and its retries and timeouts are the regular ones;
//   - a worker that crashes mid-call leaves no record, so the call runs
//     again on the task's retry; the calls are idempotent, and a local
//     publish reports every rejection as RejectedAfterRetry (see
//     activities.Publish), which goes to Verify;
//   - everything after an Unknown (verify, the republish attempts, discard)
//     runs as regular activities, visible in the history while they run.
//
// Version 2, background retention, leaves retention to the worker that
// publishes (activities.DrainRetention): a finalization no longer reports
// to its job's coordinator, and one that listed no phase of its own (the
// uneventful one) does not list Published either, its close status and
// result say it. An uneventful finalization is then its start, one
// workflow task, its local activities and its close.
//
// Executions recorded before the change replay on version 0: regular
// activities throughout; those of version 1 report to the coordinator.
const (
	fastPathChange             = "local-fast-path"
	fastPathVersion            = 1
	backgroundRetentionVersion = 2
)

// The "persist-fallback" change bounds the fast path's local persist: a
// local activity that keeps retrying holds its workflow task open, and the
// status query waits behind it (as long as the bucket fails, the first
// minutes at least), while its attempts and last failure show nowhere but
// the worker's log. From version 1 on, a local persist that has not
// succeeded or failed for good within persistLocalFor continues as a
// regular activity: the task completes, the query answers with the last
// error, and DescribeWorkflowExecution and the Web UI show the pending
// activity. The version is asked only then, so an uneventful finalization
// records no marker; an execution recorded before the change never
// recorded a local persist that ended otherwise (it retried for ever).
const (
	persistFallbackChange  = "persist-fallback"
	persistFallbackVersion = 1
	persistLocalFor        = 5 * time.Second
)

// pathVersion records (or replays) which version this execution runs.
//
// A starter that asked for version 2 in the start memo (contract.MemoPath)
// recorded the choice in the start event, so nothing more is recorded: no
// marker, and none of the TemporalChangeVersion upsert the SDK writes with
// one. While replaying, GetVersion records nothing and answers what the
// first workflow task recorded, if anything: a worker of version 1, which
// does not read the memo, may have run that task; a marker of version 2
// (a worker that records it beside this memo) replays the same commands
// either way. Executions without the memo record their version as before.
func pathVersion(ctx workflow.Context) workflow.Version {
	asked := askedPath(ctx)
	if asked && !workflow.IsReplaying(ctx) {
		return backgroundRetentionVersion
	}
	v := workflow.GetVersion(ctx, fastPathChange, workflow.DefaultVersion, backgroundRetentionVersion)
	if asked && v == workflow.DefaultVersion {
		return backgroundRetentionVersion // nothing recorded: the start decided
	}
	return v
}

// askedPath: the start memo asks for the version this code runs without a
// marker. The memo is the starter's, as untrusted as the input: it only
// chooses between versions that all keep the protocol.
func askedPath(ctx workflow.Context) bool {
	p, ok := workflow.GetInfo(ctx).Memo.GetFields()[contract.MemoPath]
	var v int
	return ok && converter.GetDefaultDataConverter().FromPayload(p, &v) == nil && v == contract.PathVersion
}
