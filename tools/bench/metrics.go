package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"slices"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/checkpoint-finalizer/finalizer/activities"
)

// families is one scrape of a Prometheus text endpoint, by family name.
type families map[string]*dto.MetricFamily

func parseFamilies(r io.Reader) (families, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	f, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("parse metrics: %w", err)
	}
	return f, nil
}

// scrapeWorker reads the worker's /metrics at addr.
func scrapeWorker(ctx context.Context, addr string) (families, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scrape worker metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape worker metrics: %s", resp.Status)
	}
	return parseFamilies(resp.Body)
}

// scrapeKube reads the API server's /metrics as its administrator.
func (k *kubeServer) scrape(ctx context.Context) (families, error) {
	b, err := k.admin.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("scrape kube-apiserver metrics: %w", err)
	}
	return parseFamilies(bytes.NewReader(b))
}

// matches reports whether m carries every label of want.
func matches(m *dto.Metric, want map[string]string) bool {
	n := 0
	for _, l := range m.GetLabel() {
		if v, ok := want[l.GetName()]; ok && v == l.GetValue() {
			n++
		}
	}
	return n == len(want)
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// counter sums the series of the counter family name that carry want.
func (f families) counter(name string, want map[string]string) float64 {
	var sum float64
	for _, m := range f[name].GetMetric() {
		if matches(m, want) {
			sum += m.GetCounter().GetValue()
		}
	}
	return sum
}

// tally is the observations of one histogram summed over series (or the
// calls of a counter, with no sum and no buckets); buckets maps each
// finite upper bound, in seconds, to the observations at or below it.
type tally struct {
	count, sum float64
	buckets    map[float64]float64
}

// minus is what t holds beyond an earlier tally of the same series.
func (t tally) minus(before tally) tally {
	d := tally{count: t.count - before.count, sum: t.sum - before.sum}
	for le, n := range t.buckets {
		if d.buckets == nil {
			d.buckets = map[float64]float64{}
		}
		d.buckets[le] = n - before.buckets[le]
	}
	return d
}

// atMost is the upper bound of the first bucket that holds the fraction q
// of the observations: their q-quantile is at most it. 0 when no finite
// bucket does.
func (t tally) atMost(q float64) time.Duration {
	bounds := slices.Sorted(maps.Keys(t.buckets))
	for _, le := range bounds {
		if t.count > 0 && t.buckets[le] >= q*t.count {
			return time.Duration(le * float64(time.Second))
		}
	}
	return 0
}

// histograms sums the series of the histogram family name that carry
// want, by the value of their label by.
func (f families) histograms(name, by string, want map[string]string) map[string]tally {
	out := map[string]tally{}
	for _, m := range f[name].GetMetric() {
		if !matches(m, want) {
			continue
		}
		k := label(m, by)
		t := out[k]
		h := m.GetHistogram()
		t.count += float64(h.GetSampleCount())
		t.sum += h.GetSampleSum()
		for _, b := range h.GetBucket() {
			if le := b.GetUpperBound(); !math.IsInf(le, 1) {
				if t.buckets == nil {
					t.buckets = map[float64]float64{}
				}
				t.buckets[le] += float64(b.GetCumulativeCount())
			}
		}
		out[k] = t
	}
	return out
}

// storeCalls scrapes the worker's /metrics at addr and sums its store call
// counter over the calls of op (every outcome).
func storeCalls(ctx context.Context, addr, op string) (float64, error) {
	f, err := scrapeWorker(ctx, addr)
	if err != nil {
		return 0, err
	}
	return f.counter(activities.MetricStoreCalls+"_total", map[string]string{"op": op}), nil
}
