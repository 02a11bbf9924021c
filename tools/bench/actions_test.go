package bench

import (
	"testing"

	"github.com/stretchr/testify/assert"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
)

// history numbers events as the server does.
func history(events ...*historypb.HistoryEvent) []*historypb.HistoryEvent {
	for i, e := range events {
		e.EventId = int64(i + 1)
	}
	return events
}

func event(t enumspb.EventType) *historypb.HistoryEvent { return &historypb.HistoryEvent{EventType: t} }

func marker(name string, task int64) *historypb.HistoryEvent {
	return &historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_MARKER_RECORDED,
		Attributes: &historypb.HistoryEvent_MarkerRecordedEventAttributes{MarkerRecordedEventAttributes: &historypb.MarkerRecordedEventAttributes{
			MarkerName: name, WorkflowTaskCompletedEventId: task}}}
}

func upsert(keys ...string) *historypb.HistoryEvent {
	fields := map[string]*commonpb.Payload{}
	for _, k := range keys {
		fields[k] = &commonpb.Payload{}
	}
	return &historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
		Attributes: &historypb.HistoryEvent_UpsertWorkflowSearchAttributesEventAttributes{UpsertWorkflowSearchAttributesEventAttributes: &historypb.UpsertWorkflowSearchAttributesEventAttributes{
			SearchAttributes: &commonpb.SearchAttributes{IndexedFields: fields}}}}
}

func taskCompleted(laRetries uint32) *historypb.HistoryEvent {
	return &historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
		Attributes: &historypb.HistoryEvent_WorkflowTaskCompletedEventAttributes{WorkflowTaskCompletedEventAttributes: &historypb.WorkflowTaskCompletedEventAttributes{
			MeteringMetadata: &commonpb.MeteringMetadata{NonfirstLocalActivityExecutionAttempts: laRetries}}}}
}

func activityStarted(attempt int32) *historypb.HistoryEvent {
	return &historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED,
		Attributes: &historypb.HistoryEvent_ActivityTaskStartedEventAttributes{ActivityTaskStartedEventAttributes: &historypb.ActivityTaskStartedEventAttributes{Attempt: attempt}}}
}

// The floor: a start and one batch of local activities, two actions.
func TestActionsOfTheFloor(t *testing.T) {
	h := history(
		event(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED),
		event(enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED),
		event(enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED),
		taskCompleted(0),
		marker(localActivityMarker, 4), marker(localActivityMarker, 4),
		event(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED),
	)
	assert.Equal(t, 2, billableActions(h))
}

// What the durable path's own history held at issue 15: GetVersion's
// marker and its TemporalChangeVersion upsert are free, the phase upsert
// is not, the local activities of the one task are one action.
func TestActionsOfOneTaskWithVersionAndUpserts(t *testing.T) {
	h := history(
		event(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED),
		event(enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED),
		event(enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED),
		taskCompleted(1), // one local activity retried
		marker("Version", 4), upsert(changeVersionAttr),
		marker(localActivityMarker, 4), marker(localActivityMarker, 4), marker(localActivityMarker, 4),
		upsert("FinalizationPhase"),
		event(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED),
	)
	assert.Equal(t, 4, billableActions(h), "start, local activities, their retry, the phase upsert")
}

// A signal-with-start that starts the coordinator is one action; a signal
// to a running one is one; an activity is one plus its retries.
func TestActionsOfSignalsAndActivities(t *testing.T) {
	started := history(
		event(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED),
		event(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED),
		event(enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED),
	)
	assert.Equal(t, 1, billableActions(started))

	running := history(
		event(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED),
		event(enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED),
		event(enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED),
		taskCompleted(0),
		marker(localActivityMarker, 4),
		event(enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED),
		activityStarted(3),
		event(enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED),
		event(enumspb.EVENT_TYPE_TIMER_STARTED),
		event(enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED),
	)
	assert.Equal(t, 1+1+1+2+1+2, billableActions(running), "signal, local activities, activity, its 2 retries, timer, child start")
}
