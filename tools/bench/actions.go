package bench

import (
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
)

// Marker and search attribute names the Go SDK writes.
const (
	localActivityMarker = "LocalActivity"
	changeVersionAttr   = "TemporalChangeVersion"
)

// billableActions counts the Temporal Cloud actions a run of history
// events records, by Temporal Cloud's published rules
// (https://docs.temporal.io/cloud/actions):
//   - a workflow start; a signal-with-start that starts the workflow is
//     one action in all (its WorkflowExecutionSignaled, right after the
//     start, is not counted again);
//   - every other signal received;
//   - every UpsertWorkflowSearchAttributes, except one that sets only
//     TemporalChangeVersion (GetVersion's, exempt);
//   - every activity scheduled, and every retry of it (its started
//     event's attempt beyond the first);
//   - the local activities of one workflow task together: one action for
//     all the local-activity markers a workflow task completed with, plus
//     the retries its metering metadata reports;
//   - every timer started, update accepted and options update; a child
//     workflow start is two.
//
// Actions that leave no event are not counted: activity heartbeats that
// reach the server, queries, and the extra action of each workflow task
// heartbeat a long local activity causes. Of those an uneventful
// finalization causes only the heartbeats of a regular activity that
// heartbeats (the coordinator's RemoveCheckpoints).
func billableActions(events []*historypb.HistoryEvent) int {
	n := 0
	laTasks := map[int64]bool{}
	for i, e := range events {
		switch e.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
			enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
			enumspb.EVENT_TYPE_TIMER_STARTED,
			enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
			enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_OPTIONS_UPDATED:
			n++
		case enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
			n += 2
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
			if !signalWithStart(events, i) {
				n++
			}
		case enumspb.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
			if !onlyChangeVersion(e) {
				n++
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			n += max(0, int(e.GetActivityTaskStartedEventAttributes().GetAttempt())-1)
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			n += int(e.GetWorkflowTaskCompletedEventAttributes().GetMeteringMetadata().GetNonfirstLocalActivityExecutionAttempts())
		case enumspb.EVENT_TYPE_MARKER_RECORDED:
			if m := e.GetMarkerRecordedEventAttributes(); m.GetMarkerName() == localActivityMarker {
				laTasks[m.GetWorkflowTaskCompletedEventId()] = true
			}
		}
	}
	return n + len(laTasks)
}

// signalWithStart: the signal at i came with the start of the workflow
// (a signal-with-start writes it right after WorkflowExecutionStarted,
// before the first workflow task is scheduled).
func signalWithStart(events []*historypb.HistoryEvent, i int) bool {
	return i > 0 && events[i-1].GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED &&
		events[i].GetEventId() == events[i-1].GetEventId()+1
}

// onlyChangeVersion: the upsert sets TemporalChangeVersion and nothing else.
func onlyChangeVersion(e *historypb.HistoryEvent) bool {
	fields := e.GetUpsertWorkflowSearchAttributesEventAttributes().GetSearchAttributes().GetIndexedFields()
	for k := range fields {
		if k != changeVersionAttr {
			return false
		}
	}
	return len(fields) > 0
}
