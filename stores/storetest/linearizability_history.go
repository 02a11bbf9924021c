package storetest

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// recorder keeps the history porcupine checks: every call with the times it
// was made and returned, on a monotonic clock shared by all clients.
type recorder struct {
	start time.Time

	mu     sync.Mutex
	ops    []porcupine.Operation
	counts map[string]int
}

func newRecorder() *recorder {
	return &recorder{start: time.Now(), counts: map[string]int{}}
}

func (r *recorder) now() int64 { return int64(time.Since(r.start)) }

// possiblyApplied is the return time of a call whose outcome is unknown:
// it may take effect at any point after it was made, and operations()
// moves it past every other call, to the end of the history.
const possiblyApplied = math.MaxInt64

// record makes the call on c's store and records it. A pure read whose
// answer was lost constrains nothing and is left out.
func (r *recorder) record(client int, c call, cl *linClient) answer {
	ctx, cancel := context.WithTimeout(context.Background(), linCallTimeout)
	defer cancel()
	called := r.now()
	a := c.run(ctx, cl.store, cl.inv, r.start)
	returned := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counts[fmt.Sprintf("%-11s %s", c.Kind, a.verdict())]++
	switch {
	case a.Unknown && !c.Kind.mutates():
		return a
	case a.Unknown:
		returned = possiblyApplied
	}
	r.ops = append(r.ops, porcupine.Operation{ClientId: client, Input: c, Call: called, Output: a, Return: returned})
	return a
}

// fault counts a fault armed for one call and whether it acted.
func (r *recorder) fault(name string, acted bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counts[fmt.Sprintf("fault %-26s acted %t", name, acted)]++
}

// operations returns the history, the possibly applied calls returning
// after everything else.
func (r *recorder) operations() []porcupine.Operation {
	r.mu.Lock()
	defer r.mu.Unlock()
	end := r.now() + 1
	ops := slices.Clone(r.ops)
	for i := range ops {
		if ops[i].Return == possiblyApplied {
			ops[i].Return = end
		}
	}
	return ops
}

// summarize logs how the calls ended, so that a passing run shows it
// exercised rejections, unknown outcomes and faults, not only successes.
func (r *recorder) summarize(t *testing.T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	lines := make([]string, 0, len(r.counts))
	for k, n := range r.counts {
		lines = append(lines, fmt.Sprintf("%4d  %s", n, k))
	}
	slices.SortFunc(lines, func(a, b string) int { return strings.Compare(a[6:], b[6:]) })
	t.Logf("%d calls recorded in %s:\n%s", len(r.ops), time.Since(r.start).Round(time.Millisecond), strings.Join(lines, "\n"))
}

// verdict names how a call ended, for the summary.
func (a answer) verdict() string {
	switch {
	case a.Unknown:
		return "unknown"
	case a.Malformed != "":
		return "malformed"
	case a.Rejection != "":
		return "rejected: " + a.Rejection
	}
	return "ok"
}
