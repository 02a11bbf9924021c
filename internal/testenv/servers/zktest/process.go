package zktest

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
)

// stopGrace is how long a node has to shut down after SIGTERM.
const stopGrace = 10 * time.Second

// launch starts a node on cfgPath with its output appended to logPath, so
// that a restarted node keeps one log across its lives. Its own process
// group that dies with the test binary (internal/testenv/servers/proc): Kill reaches the
// JVM itself, and an aborted test leaves no node behind.
func launch(cfgPath, logPath string) (*proc.Process, error) {
	argv := Command(cfgPath)
	return proc.Start(exec.Command(argv[0], argv[1:]...), proc.Options{Name: "zookeeper", Log: logPath})
}

// Mode asks the server at addr for its srvr mode: "leader", "follower" or
// "standalone"; an error when it does not serve.
func Mode(addr string) (string, error) {
	out, err := FourLetter(addr, "srvr")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(out, "\n") {
		if mode, ok := strings.CutPrefix(line, "Mode: "); ok {
			return strings.TrimSpace(mode), nil
		}
	}
	return "", fmt.Errorf("does not serve: %q", strings.TrimSpace(out))
}

// Leader is the index of the address whose server answers "Mode: leader";
// an error while the ensemble has none (an election is running).
func Leader(addrs []string) (int, error) {
	for i, addr := range addrs {
		if mode, err := Mode(addr); err == nil && mode == "leader" {
			return i, nil
		}
	}
	return 0, errors.New("zookeeper ensemble: no leader")
}

// WaitServing waits until the server at addr answers srvr with a mode, or
// fails early once running reports its process gone: ruok answers imok
// even before the server can serve, and an ensemble member answers with a
// mode only once it has joined a quorum.
func WaitServing(addr string, running func() bool, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		_, err := Mode(addr)
		if err == nil {
			return nil
		}
		if !running() {
			return errors.New("zookeeper exited")
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not serving after %s: %w", timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
