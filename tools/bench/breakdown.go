package bench

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/checkpoint-finalizer/finalizer/worker"
)

// A Step is one part of what a cell's finalizations cost, counted over the
// measured run: a local activity the worker ran (by type), the wait of a
// workflow task it polled for (by workflow type), a call its process made
// to the Temporal frontend (by operation; the in-process triggers' starts
// included, the long polls for tasks and results not) or, on Kubernetes,
// the API server's ConfigMap requests by verb, and the 409 Conflicts among
// its updates (retention's writes and the publishes race for a job's one
// ConfigMap). Background retention runs no activity: it shows only in the
// requests and the calls.
type Step struct {
	Name string `json:"name"`
	// PerFinalization is how many there were per published finalization.
	PerFinalization float64 `json:"perFinalization"`
	// Mean is their mean duration as the worker (a local activity's
	// execution) or the API server (a request's handling) measured it; 0
	// where no duration is kept (the conflicts).
	Mean time.Duration `json:"mean,omitempty"`
	// P99 bounds their 99th percentile from above: the upper bound of the
	// histogram bucket it falls in (the worker's buckets run 1, 2.5, 5,
	// 10, 25, 50, 100, 250 ms...); 0 where not known.
	P99 time.Duration `json:"p99,omitempty"`
	// Max bounds the slowest the same way: where a run's few slowest
	// finalizations spent their time.
	Max time.Duration `json:"max,omitempty"`
}

// stepCounts are the cumulative counts and durations of every step, by
// name, at one scrape.
type stepCounts map[string]tally

const (
	localActivityLatency = "temporal_local_activity_execution_latency_seconds"
	// A workflow task the worker polled for (not one eagerly handed to it
	// with the start): from its scheduling to the worker's receiving it.
	taskScheduleToStart = "temporal_workflow_task_schedule_to_start_latency_seconds"
	// The worker's process's calls to the Temporal frontend by operation
	// (the bench's triggers share its client), long polls apart.
	temporalRequestLatency = "temporal_request_latency_seconds"
	kubeRequestLatency     = "apiserver_request_duration_seconds"
	kubeRequests           = "apiserver_request_total"
	conflictStep           = "PUT configmaps 409"
)

// stepScrape is the meter's scrape of this store's steps.
func (sr *storeRun) stepScrape(ctx context.Context) func() (stepCounts, error) {
	return func() (stepCounts, error) { return sr.stepCounts(ctx) }
}

// stepCounts scrapes the worker's metrics and, with a Kubernetes store,
// the API server's.
func (sr *storeRun) stepCounts(ctx context.Context) (stepCounts, error) {
	f, err := scrapeWorker(ctx, sr.ready.MetricsAddress)
	if err != nil {
		return nil, err
	}
	out := stepCounts{}
	for activity, t := range f.histograms(localActivityLatency, "activity_type", nil) {
		out[activity] = t
	}
	for workflow, t := range f.histograms(taskScheduleToStart, "workflow_type", nil) {
		out[workflow+" task schedule-to-start"] = t
	}
	for op, t := range f.histograms(temporalRequestLatency, "operation", nil) {
		out["rpc "+op] = t
	}
	if sr.kind != worker.StoreKubernetes {
		return out, nil
	}
	k, err := sr.srv.kube.scrape(ctx)
	if err != nil {
		return nil, err
	}
	out.addKube(k)
	return out, nil
}

// addKube adds the API server's ConfigMap requests of one scrape.
func (c stepCounts) addKube(f families) {
	configMaps := map[string]string{"resource": "configmaps"}
	for verb, t := range f.histograms(kubeRequestLatency, "verb", configMaps) {
		c[verb+" configmaps"] = t
	}
	c[conflictStep] = tally{count: f.counter(kubeRequests, map[string]string{"resource": "configmaps", "verb": "PUT", "code": "409"})}
}

// since is what happened between before and c.
func (c stepCounts) since(before stepCounts) stepCounts {
	out := stepCounts{}
	for name, t := range c {
		b := before[name]
		if d := t.minus(b); d.count > 0 {
			out[name] = d
		}
	}
	return out
}

// steps are the counts per published finalization, by name.
func (c stepCounts) steps(published int) []Step {
	if published == 0 {
		return nil
	}
	out := make([]Step, 0, len(c))
	for name, t := range c {
		s := Step{Name: name, PerFinalization: t.count / float64(published)}
		if t.sum > 0 {
			s.Mean = time.Duration(t.sum / t.count * float64(time.Second))
		}
		s.P99, s.Max = t.atMost(0.99), t.atMost(1)
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Step) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// medianSteps is, for every step any repetition had, the median of its
// figures over the repetitions (0 where a repetition had none).
func medianSteps(runs []Result) []Step {
	var names []string
	for _, r := range runs {
		for _, s := range r.Steps {
			if !slices.Contains(names, s.Name) {
				names = append(names, s.Name)
			}
		}
	}
	slices.Sort(names)
	out := make([]Step, 0, len(names))
	for _, name := range names {
		step := func(r Result) Step {
			i := slices.IndexFunc(r.Steps, func(s Step) bool { return s.Name == name })
			if i < 0 {
				return Step{}
			}
			return r.Steps[i]
		}
		out = append(out, Step{
			Name:            name,
			PerFinalization: median(runs, func(r Result) float64 { return step(r).PerFinalization }),
			Mean:            median(runs, func(r Result) time.Duration { return step(r).Mean }),
			P99:             median(runs, func(r Result) time.Duration { return step(r).P99 }),
			Max:             median(runs, func(r Result) time.Duration { return step(r).Max }),
		})
	}
	return out
}
