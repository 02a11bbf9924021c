package workflows

import (
	"go.temporal.io/sdk/workflow"
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

// pathVersion records (or replays) which version this execution runs.
func pathVersion(ctx workflow.Context) workflow.Version {
	return workflow.GetVersion(ctx, fastPathChange, workflow.DefaultVersion, backgroundRetentionVersion)
}
