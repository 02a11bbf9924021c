package bench

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/checkpoint-finalizer/finalizer/activities"
)

// storeCalls scrapes the worker's /metrics at addr and sums its store call
// counter over the calls of op (every outcome).
func storeCalls(ctx context.Context, addr, op string) (float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("scrape worker metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("scrape worker metrics: %s", resp.Status)
	}
	prefix := activities.MetricStoreCalls + "_total{"
	label := fmt.Sprintf("op=%q", op)
	var sum float64
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, prefix) || !strings.Contains(line, label) {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			return 0, fmt.Errorf("scrape worker metrics: %q: %w", line, err)
		}
		sum += v
	}
	return sum, sc.Err()
}
