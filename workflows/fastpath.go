package workflows

import (
	"go.temporal.io/sdk/workflow"
)

// The fast path (version 1 of the "local-fast-path" change) runs the steps
// of an uneventful finalization as local activities: persist the handle,
// the first publish attempt and the report to the coordinator all run in
// the workflow task that started the finalization, which a worker in the
// triggering process can receive by eager start. Nothing the protocol
// decides changes:
//   - a local activity's outcome is recorded before the workflow acts on
//     it, and its retries and timeouts are the regular ones;
//   - a worker that crashes mid-call leaves no record, so the call runs
//     again on the task's retry; the calls are idempotent, and a local
//     publish reports every rejection as RejectedAfterRetry (see
//     activities.Publish), which goes to Verify;
//   - everything after an Unknown (verify, the republish attempts, discard)
//     runs as regular activities, visible in the history while they run.
//
// Executions recorded before the change replay on version 0: regular
// activities throughout.
const (
	fastPathChange  = "local-fast-path"
	fastPathVersion = 1
)

// fastPath records (or replays) which version this execution runs.
func fastPath(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, fastPathChange, workflow.DefaultVersion, fastPathVersion) == fastPathVersion
}
