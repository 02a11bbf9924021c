package bench

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/serviceerror"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/worker"
)

// Anatomy is what one uneventful finalization of a path writes into
// Temporal: its own history's events by type and the events it adds to
// its job's coordinator, on a job whose previous checkpoint is already
// Published (the steady state: this one subsumes it).
type Anatomy struct {
	Store worker.StoreKind `json:"store"`
	Path  Path             `json:"path"`
	// Events are the finalization workflow's history events by type.
	Events map[string]int `json:"events"`
	// CoordinatorEvents are the events it added to the coordinator's
	// history (its report and the pass that subsumes the previous one).
	CoordinatorEvents map[string]int `json:"coordinatorEvents,omitempty"`
	// VisibilityWrites counts the visibility records written: each
	// execution's start and close, and each search-attribute upsert.
	VisibilityWrites int `json:"visibilityWrites"`
	// Actions and CoordinatorActions are the Temporal Cloud billable
	// actions its events and the coordinator's events for it record
	// (billableActions).
	Actions            int `json:"actions"`
	CoordinatorActions int `json:"coordinatorActions"`
}

// Total is the events the finalization costs, its own and its coordinator's.
func (a Anatomy) Total() int { return sum(a.Events) + sum(a.CoordinatorEvents) }

// TotalActions is the billable actions the finalization costs, its own and
// its coordinator's.
func (a Anatomy) TotalActions() int { return a.Actions + a.CoordinatorActions }

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// anatomyPaths are the paths taken apart: the workflow paths an
// in-process trigger runs (remote runs the durable path's workflow).
var anatomyPaths = []Path{Floor, Durable, Naive}

// anatomy finalizes two checkpoints of a fresh job on path, one after the
// other, and takes the second apart.
func (sr *storeRun) anatomy(ctx context.Context, path Path) (Anatomy, error) {
	job := "anatomy-" + string(path)
	if err := sr.claim(ctx, path, []string{job}); err != nil {
		return Anatomy{}, err
	}
	src := newCheckpoints(sr.bucket, sr.cluster, sr.epoch, []string{job})
	fin := sr.finalizer(path)
	coordinator := contract.CoordinatorID(sr.cluster, job)
	var before, added []*historypb.HistoryEvent
	var id string
	for i := range 2 {
		req, err := src.next(0)
		if err != nil {
			return Anatomy{}, err
		}
		if _, err := fin(ctx, req); err != nil {
			return Anatomy{}, fmt.Errorf("anatomy of %s: checkpoint %d: %w", path, req.Checkpoint, err)
		}
		if path == Floor {
			id = "floor/" + req.WorkflowID()
			continue
		}
		id = req.WorkflowID()
		if path == Naive {
			id = "naive/" + id
		}
		events, err := sr.settledEvents(ctx, coordinator)
		if err != nil {
			return Anatomy{}, fmt.Errorf("anatomy of %s: coordinator: %w", path, err)
		}
		if i == 0 {
			before = events
			continue
		}
		added = events[min(len(before), len(events)):]
	}
	events, err := sr.events(ctx, id)
	if err != nil {
		return Anatomy{}, fmt.Errorf("anatomy of %s: %w", path, err)
	}
	own, coord := countEvents(events), countEvents(added)
	a := Anatomy{Store: sr.kind, Path: path, Events: own, CoordinatorEvents: coord,
		Actions: billableActions(events), CoordinatorActions: billableActions(added)}
	// The finalization's start and close, its upserts, and the
	// coordinator's upserts (a coordinator that started or closed for it
	// shows in its counts too).
	a.VisibilityWrites = 2 + own[eventName(enumspb.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES)] +
		coord[eventName(enumspb.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES)] +
		coord[eventName(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED)] +
		coord[eventName(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW)]
	return a, nil
}

// settledEvents waits until the coordinator has nothing pending and its
// history stopped growing, and returns its events: none when the job has
// no coordinator (the worker's background retention serves it).
func (sr *storeRun) settledEvents(ctx context.Context, id string) ([]*historypb.HistoryEvent, error) {
	var last int64 = -1
	deadline := time.Now().Add(sr.cfg.Timeout)
	for {
		d, err := sr.ready.Client.DescribeWorkflow(ctx, id, "")
		var notFound *serviceerror.NotFound
		if errors.As(err, &notFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		raw := d.RawResponse
		length := raw.GetWorkflowExecutionInfo().GetHistoryLength()
		if len(raw.GetPendingActivities()) == 0 && raw.GetPendingWorkflowTask() == nil && length == last {
			return sr.events(ctx, id)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s still busy after %s", id, sr.cfg.Timeout)
		}
		last = length
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// events reads an execution's whole history.
func (sr *storeRun) events(ctx context.Context, id string) ([]*historypb.HistoryEvent, error) {
	it := sr.ready.Client.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var events []*historypb.HistoryEvent
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("history of %s: %w", id, err)
		}
		events = append(events, e)
	}
	return events, nil
}

// countEvents counts events by type.
func countEvents(events []*historypb.HistoryEvent) map[string]int {
	counts := map[string]int{}
	for _, e := range events {
		counts[eventName(e.GetEventType())]++
	}
	return counts
}

// eventName is the event type as the Web UI shows it
// (WorkflowTaskScheduled): the API's String form.
func eventName(t enumspb.EventType) string { return t.String() }

// eventList writes counts as "Type ×n, ..." in a stable order.
func eventList(counts map[string]int) string {
	if len(counts) == 0 {
		return "-"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%s ×%d", k, counts[k]))
	}
	return strings.Join(parts, ", ")
}
