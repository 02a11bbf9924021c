package worker

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// probeTimeout bounds each dependency's answer to one readiness request,
// well inside a Kubernetes probe's default 1 s... 10 s window.
const probeTimeout = 2 * time.Second

// probe asks one dependency whether it can serve now.
type probe struct {
	name string
	ask  func(ctx context.Context) error
}

// live answers 200 while the process serves HTTP: restarting it helps only
// when it does not.
func live(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) }

// readyz answers 200 when the pollers run and every dependency answers
// (Temporal's frontend, the HA store's session or API server, which
// retirements need too, and the state bucket), else 503;
// the body names each check and, for a failed one, the error, so an
// operator reading the probe's output sees which dependency is away.
func (m *metrics) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), probeTimeout)
	defer cancel()
	var b strings.Builder
	ok := m.ready.Load()
	if ok {
		b.WriteString("pollers: ok\n")
	} else {
		b.WriteString("pollers: not polling (starting or stopping)\n")
	}
	if ps := m.probes.Load(); ps != nil {
		for _, p := range *ps {
			if err := p.ask(ctx); err != nil {
				ok = false
				fmt.Fprintf(&b, "%s: %v\n", p.name, err)
				continue
			}
			fmt.Fprintf(&b, "%s: ok\n", p.name)
		}
	}
	if !ok {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_, _ = w.Write([]byte(b.String()))
}
