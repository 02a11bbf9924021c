package devserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
)

// readyTimeout bounds one start: the server serves in ~0.2-1.5 s, but 2
// shared cores under a parallel `go test ./...` can be much slower.
const readyTimeout = 60 * time.Second

// pollInterval is short because the whole start takes about a second.
const pollInterval = 50 * time.Millisecond

// waitReady returns once the frontend answers a health check and every
// requested search attribute is visible in the namespace, or fails early
// when the process exits.
func (s *Server) waitReady(ctx context.Context, p *proc.Process) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	// Accepting TCP first: dialing a closed port makes gRPC back off for
	// up to seconds, which would slow every start down.
	if err := waitListening(ctx, p, s.HostPort); err != nil {
		return fmt.Errorf("frontend %s: %w", s.HostPort, err)
	}
	c, err := s.dial(ctx, p)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := s.waitSearchAttributes(ctx, p, c.OperatorService()); err != nil {
		return err
	}
	if s.ports.ui != 0 {
		if err := waitListening(ctx, p, fmt.Sprintf("127.0.0.1:%d", s.ports.ui)); err != nil {
			return fmt.Errorf("web UI: %w", err)
		}
	}
	return nil
}

// dial connects an SDK client and waits for a passing health check.
func (s *Server) dial(ctx context.Context, p *proc.Process) (client.Client, error) {
	var lastErr error
	for {
		c, err := s.dialOnce(ctx)
		if err == nil {
			return c, nil
		}
		lastErr = err
		if err := pause(ctx, p); err != nil {
			return nil, fmt.Errorf("frontend %s health (last: %v): %w", s.HostPort, lastErr, err)
		}
	}
}

// dialOnce bounds one attempt: the SDK retries an unavailable server
// until its context ends, which would hide an exited process.
func (s *Server) dialOnce(ctx context.Context) (client.Client, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := client.DialContext(ctx, client.Options{
		HostPort:  s.HostPort,
		Namespace: s.Namespace,
		Logger:    QuietLogger(),
	})
	if err != nil {
		return nil, err
	}
	if _, err := c.CheckHealth(ctx, &client.CheckHealthRequest{}); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// waitSearchAttributes waits until every requested search attribute is
// registered with its type. On a fresh database the dev server's
// --search-attribute flag registers them; on an existing one it does not
// touch the namespace, so missing ones are added here, once.
func (s *Server) waitSearchAttributes(ctx context.Context, p *proc.Process, ops operatorservice.OperatorServiceClient) error {
	if len(s.saTypes) == 0 {
		return nil
	}
	added := false
	var lastErr error
	for {
		missing, err := s.missingSearchAttributes(ctx, ops)
		switch {
		case errors.Is(err, errSearchAttributeType):
			return err
		case err != nil:
			lastErr = err
		case len(missing) == 0:
			return nil
		case !added:
			_, err = ops.AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
				SearchAttributes: missing,
				Namespace:        s.Namespace,
			})
			if err != nil {
				return fmt.Errorf("add search attributes %v: %w", missing, err)
			}
			added = true
		default:
			lastErr = fmt.Errorf("not visible yet: %v", missing)
		}
		if err := pause(ctx, p); err != nil {
			return fmt.Errorf("search attributes in namespace %s (last: %v): %w", s.Namespace, lastErr, err)
		}
	}
}

// missingSearchAttributes lists the requested attributes the namespace does
// not have. One registered with another type is an error: a workflow
// upserting it would fail, and it cannot be changed in place.
func (s *Server) missingSearchAttributes(ctx context.Context, ops operatorservice.OperatorServiceClient) (map[string]enumspb.IndexedValueType, error) {
	resp, err := ops.ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: s.Namespace})
	if err != nil {
		return nil, fmt.Errorf("list search attributes: %w", err)
	}
	missing := map[string]enumspb.IndexedValueType{}
	for name, want := range s.saTypes {
		got, ok := resp.GetCustomAttributes()[name]
		if !ok {
			missing[name] = want
			continue
		}
		if got != want {
			return nil, fmt.Errorf("%w: %s is registered as %s, want %s", errSearchAttributeType, name, got, want)
		}
	}
	return missing, nil
}

// errSearchAttributeType marks a type clash, which waiting cannot resolve.
var errSearchAttributeType = errors.New("search attribute type clash")

// waitListening waits until addr accepts a TCP connection.
func waitListening(ctx context.Context, p *proc.Process, addr string) error {
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if err := pause(ctx, p); err != nil {
			return err
		}
	}
}

// pause sleeps one poll interval, failing early when the context ends or
// the server process exits.
func pause(ctx context.Context, p *proc.Process) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-p.Done():
		return p.Exited()
	case <-time.After(pollInterval):
		return nil
	}
}

// QuietLogger drops the SDK client's logs: without a logger it prints
// every connection attempt to stdout, which would drown test output.
func QuietLogger() sdklog.Logger {
	return sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
}
