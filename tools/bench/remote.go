package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
)

// remote runs the durable path from a separate trigger process (this
// executable again, see RunTrigger) and meters this process, which runs
// the worker, over the trigger's measured run only.
func (sr *storeRun) remote(ctx context.Context, jobs []string, load Load) (Sample, Usage, error) {
	spec, err := json.Marshal(triggerSpec{
		Address: sr.wcfg.Temporal.Address, Namespace: sr.wcfg.Temporal.Namespace, TaskQueue: sr.wcfg.Temporal.TaskQueue,
		BucketDir: sr.bucket.Dir, Cluster: sr.cluster, Epoch: sr.epoch, Jobs: jobs,
		Warmup: sr.cfg.Warmup, Load: load,
	})
	if err != nil {
		return Sample{}, Usage{}, err
	}
	argv, err := triggerCommand(sr.cfg)
	if err != nil {
		return Sample{}, Usage{}, err
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), TriggerEnv+"=1")
	cmd.Stderr = os.Stderr
	// Pipes of our own: exec's close once the exit is reaped, which
	// internal/testenv/servers/proc does at once, maybe before the sample is read.
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return Sample{}, Usage{}, err
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		stdinR.Close()
		stdinW.Close()
		return Sample{}, Usage{}, err
	}
	defer stdoutR.Close()
	cmd.Stdin, cmd.Stdout = stdinR, stdoutW
	trigger, err := proc.Start(cmd, proc.Options{Name: "trigger process"})
	// The child holds its ends now; ours would hide its exit from a read.
	stdinR.Close()
	stdoutW.Close()
	if err != nil {
		stdinW.Close()
		return Sample{}, Usage{}, fmt.Errorf("start trigger process %v: %w", argv, err)
	}
	s, u, err := converse(stdinW, bufio.NewReader(stdoutR), spec, sr.srv.temporal.Processes(), sr.stepScrape(ctx))
	if err != nil {
		_ = trigger.Kill()
	}
	if werr := trigger.Wait(); werr != nil && err == nil {
		err = fmt.Errorf("trigger process: %w", werr)
	}
	return s, u, err
}

// converse sends the spec, waits for the warm-up to end, starts the meter
// (counting steps with the given scrape) and reads the measured sample.
func converse(stdin io.WriteCloser, stdout *bufio.Reader, spec []byte, server serverProcesses, steps func() (stepCounts, error)) (Sample, Usage, error) {
	defer stdin.Close()
	if _, err := fmt.Fprintf(stdin, "%s\n", spec); err != nil {
		return Sample{}, Usage{}, fmt.Errorf("trigger process: send spec: %w", err)
	}
	line, err := stdout.ReadString('\n')
	if err != nil || strings.TrimSpace(line) != warmLine {
		return Sample{}, Usage{}, errors.Join(fmt.Errorf("trigger process: no warm-up line (got %q)", line), err)
	}
	m, err := startMeter(server, steps)
	if err != nil {
		return Sample{}, Usage{}, err
	}
	if _, err := fmt.Fprintln(stdin, "go"); err != nil {
		return Sample{}, Usage{}, fmt.Errorf("trigger process: send go-ahead: %w", err)
	}
	var s Sample
	if err := json.NewDecoder(stdout).Decode(&s); err != nil {
		return Sample{}, Usage{}, fmt.Errorf("trigger process: read sample: %w", err)
	}
	u, err := m.stop()
	return s, u, err
}

// triggerCommand is the configured trigger command, or this executable.
func triggerCommand(cfg Config) ([]string, error) {
	if len(cfg.TriggerCommand) > 0 {
		return cfg.TriggerCommand, nil
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("separate trigger: find this executable: %w", err)
	}
	return []string{self}, nil
}
