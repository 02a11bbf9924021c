package world

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/checkpoint-finalizer/finalizer/tools/faultharness/internal/pace"
)

// injectBytes applies a byte-level fault to the workers' path to the
// store, whichever store it is: every connection reset, or every byte
// delayed for a while.
func injectBytes(ctx context.Context, proxies []*netProxy, kind FaultKind, rng *rand.Rand) (int, string, error) {
	switch kind {
	case Reset:
		cut := 0
		for _, p := range proxies {
			cut += p.CutAll()
		}
		return 1, fmt.Sprintf("%d connection(s) cut", cut), nil
	case Latency:
		d, hold := pace.Between(rng, 200*time.Millisecond, 1500*time.Millisecond), pace.Between(rng, 2*time.Second, 5*time.Second)
		for _, p := range proxies {
			p.SetLatency(d)
		}
		pace.Sleep(ctx, hold)
		for _, p := range proxies {
			p.SetLatency(0)
		}
		return 1, fmt.Sprintf("+%s for %s", d.Round(time.Millisecond), hold.Round(time.Millisecond)), nil
	}
	return 0, "", fmt.Errorf("fault kind %s is not a byte-level fault", kind)
}
