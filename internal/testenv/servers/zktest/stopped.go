package zktest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// waitStopped waits until every thread of pid is stopped: kill(SIGSTOP)
// returns before the threads have all taken the stop, and a thread that
// has not yet could still answer a request.
func waitStopped(pid int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		running, err := runningThreads(pid)
		if err != nil {
			return fmt.Errorf("zookeeper process %d: %w", pid, err)
		}
		if running == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("zookeeper process %d: %d threads not stopped after %s", pid, running, timeout)
		}
		time.Sleep(time.Millisecond)
	}
}

// runningThreads counts the threads of pid whose state (the field after
// the command name in /proc/<pid>/task/<tid>/stat) is not T or t, stopped.
func runningThreads(pid int) (int, error) {
	stats, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	if err != nil || len(stats) == 0 {
		return 0, fmt.Errorf("no threads in /proc: %v", err)
	}
	running := 0
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // the thread exited
		}
		// The command name may itself hold ") ": the state follows the last.
		stat := string(b)
		i := strings.LastIndex(stat, ") ")
		if i >= 0 && !strings.HasPrefix(stat[i+2:], "T") && !strings.HasPrefix(stat[i+2:], "t") {
			running++
		}
	}
	return running, nil
}
