package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	sdkclient "go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/jobmanager"
)

// TriggerEnv marks a process started as a separate trigger: its main
// calls RunTrigger instead of its usual work.
const TriggerEnv = "FINALIZER_BENCH_TRIGGER"

// IsTrigger reports whether this process was started as a trigger.
func IsTrigger() bool { return os.Getenv(TriggerEnv) == "1" }

// triggerSpec is what the benchmark hands a trigger process on stdin.
type triggerSpec struct {
	Address   string        `json:"address"`
	Namespace string        `json:"namespace"`
	TaskQueue string        `json:"taskQueue"`
	BucketDir string        `json:"bucketDir"`
	Cluster   string        `json:"cluster"`
	Epoch     uint64        `json:"epoch"`
	Jobs      []string      `json:"jobs"`
	Warmup    time.Duration `json:"warmup"`
	Load      Load          `json:"load"`
}

// The trigger's protocol on its stdout: a line once warmed up, then
// (after a "go" line on stdin) the measured Sample as one JSON line.
const warmLine = "warm"

// RunTrigger is the separate trigger process: it reads a spec from in,
// dials Temporal with a client of its own (no eager start: no worker runs
// here), warms up, waits for the go-ahead and runs the measured load,
// then writes the Sample to out.
func RunTrigger(ctx context.Context, in io.Reader, out io.Writer) error {
	r := bufio.NewReader(in)
	line, err := r.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("trigger: read spec: %w", err)
	}
	var spec triggerSpec
	if err := json.Unmarshal(line, &spec); err != nil {
		return fmt.Errorf("trigger: decode spec: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	tc, err := sdkclient.DialContext(ctx, sdkclient.Options{
		HostPort: spec.Address, Namespace: spec.Namespace, Logger: sdklog.NewStructuredLogger(logger),
	})
	if err != nil {
		return fmt.Errorf("trigger: dial %s: %w", spec.Address, err)
	}
	defer tc.Close()
	fin := durable(client.New(tc, client.Options{TaskQueue: spec.TaskQueue, Logger: logger}))
	src := newCheckpoints(jobmanager.Bucket{Dir: spec.BucketDir}, spec.Cluster, spec.Epoch, spec.Jobs)
	if spec.Warmup > 0 {
		warm := spec.Load
		warm.Duration = spec.Warmup
		if _, err := warm.run(ctx, src, fin); err != nil {
			return fmt.Errorf("trigger: warm-up: %w", err)
		}
	}
	if _, err := fmt.Fprintln(out, warmLine); err != nil {
		return fmt.Errorf("trigger: %w", err)
	}
	if _, err := r.ReadString('\n'); err != nil {
		return fmt.Errorf("trigger: wait for the go-ahead: %w", err)
	}
	s, err := spec.Load.run(ctx, src, fin)
	if err != nil {
		return fmt.Errorf("trigger: %w", err)
	}
	if err := json.NewEncoder(out).Encode(s); err != nil {
		return fmt.Errorf("trigger: write sample: %w", err)
	}
	return nil
}
