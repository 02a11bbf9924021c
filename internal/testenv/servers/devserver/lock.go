package devserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// lockFile takes an exclusive flock on path, across processes (go test
// runs the test binaries of several packages at once). It polls instead of
// blocking so that a cancelled context stops the wait.
func lockFile(ctx context.Context, path string, progress io.Writer) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	announced := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("flock %s: %w", path, err)
		}
		if !announced {
			fmt.Fprintf(progress, "devserver: waiting for another install of the Temporal CLI (lock %s)\n", path)
			announced = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	// Closing the file releases the lock.
	return func() { f.Close() }, nil
}

// waitForeignInstall waits while a `go install` of the CLI that does not
// take the lock (started by hand) is running: compiling the same ~1,000
// packages twice at once would double the wait on 2 cores.
func waitForeignInstall(ctx context.Context, progress io.Writer) error {
	start := time.Now()
	var last time.Time
	for foreignInstallRunning() {
		if time.Since(last) > 30*time.Second {
			fmt.Fprintf(progress, "devserver: another `go install %s` is running; waiting for it (%s so far)\n",
				cliPackage, time.Since(start).Round(time.Second))
			last = time.Now()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for another install of the Temporal CLI: %w", ctx.Err())
		case <-time.After(2 * time.Second):
		}
	}
	return nil
}

// foreignInstallRunning scans /proc for a process whose command line names
// the CLI package (what `pgrep -f` would find).
func foreignInstallRunning() bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	self := os.Getpid()
	needle := []byte(cliPackage)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmdline, needle) {
			return true
		}
	}
	return false
}
