package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// unreachableReport is how often Open says the API server still does not
// answer (as the ZooKeeper store does for its session).
const unreachableReport = 2 * time.Second

// openRetry is how long Open waits between two probes.
const openRetry = 250 * time.Millisecond

// Open is New, then waits until the API server answers: an address that
// refuses, times out or answers 5xx is reported every few seconds, with
// the address and the client's error, while Open keeps trying. Any other
// answer (a 403 from RBAC, say) is the store's to report on its first
// call, and Open returns. When ctx ends first, Open fails with the address
// and the last error.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	s, err := New(cfg)
	if err != nil {
		return nil, err
	}
	host := s.host
	begin, nextReport := time.Now(), time.Now().Add(unreachableReport)
	for {
		err := s.Probe(ctx)
		if answered(err) {
			return s, nil
		}
		if time.Now().After(nextReport) {
			s.log.Warn("kubernetes API server not answering yet, still trying", "server", host,
				"waited", time.Since(begin).Round(time.Second).String(), "error", err)
			nextReport = time.Now().Add(unreachableReport)
		}
		select {
		case <-ctx.Done():
			_ = s.Close()
			return nil, fmt.Errorf("kubernetes API server %s did not answer (%v): %w", host, err, ctx.Err())
		case <-time.After(openRetry):
		}
	}
}

// answered reports whether a probe's error is the API server's answer
// (nil, or a status below 500) rather than its absence.
func answered(err error) bool {
	var status apierrors.APIStatus
	if err == nil {
		return true
	}
	if !errors.As(err, &status) {
		return false
	}
	code := status.Status().Code
	return code != 0 && code < http.StatusInternalServerError
}
