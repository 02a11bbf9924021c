package temporaltest

import (
	"context"
	"testing"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

func dumpHistory(t *testing.T, c client.Client, run client.WorkflowRun) {
	iter := c.GetWorkflowHistory(context.Background(), run.GetID(), run.GetRunID(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		ev, _ := iter.Next()
		t.Logf("%s %s", ev.GetEventTime().AsTime().Format("15:04:05.000"), ev.GetEventType())
	}
}
