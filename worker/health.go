package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
)

// Healthcheck asks a running worker's /healthz (its readiness) at its
// metrics address and returns nil when it is ready. It exists for
// container healthchecks in images without a shell or curl
// (`finalizer-worker healthcheck`).
func Healthcheck(ctx context.Context, metricsAddress string) error {
	if metricsAddress == "" {
		return errors.New("healthcheck needs the metrics address (--metrics-address / FINALIZER_METRICS_ADDRESS)")
	}
	host, port, err := net.SplitHostPort(metricsAddress)
	if err != nil {
		return fmt.Errorf("metrics address %q: %w", metricsAddress, err)
	}
	// A wildcard listen address is reached on loopback.
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	url := "http://" + net.JoinHostPort(host, port) + "/healthz"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("healthcheck %s: %w", url, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck %s: %s: %s", url, resp.Status, body)
	}
	return nil
}
