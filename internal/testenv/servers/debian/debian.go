// Package debian installs the Debian packages a test harness needs (a real
// ZooKeeper, jq, Chromium, PostgreSQL) when they are missing, so that the
// test command runs on a fresh machine. Test binaries of several packages
// run at once: installs are serialized by one machine-wide lock.
package debian

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// Ensure installs pkgs with apt-get unless present reports them there
// already; present is asked again under the lock and after the install.
func Ensure(present func() bool, pkgs ...string) error {
	if present() {
		return nil
	}
	names := strings.Join(pkgs, " ")
	lock, err := os.OpenFile(filepath.Join(os.TempDir(), "finalizer-apt.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("install %s: %w", names, err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("install %s: lock: %w", names, err)
	}
	if present() {
		return nil
	}
	fmt.Fprintf(os.Stderr, "debian: installing %s (once per machine)\n", names)
	script := "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends " + names
	if os.Geteuid() != 0 {
		script = "sudo -n sh -c '" + script + "'"
	}
	cmd := exec.Command("sh", "-c", script)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("install %s with apt-get: %w", names, err)
	}
	if !present() {
		return fmt.Errorf("install %s: still missing after apt-get", names)
	}
	return nil
}

// Command reports whether name is on PATH: the present check of a package
// that ships a command.
func Command(name string) func() bool {
	return func() bool {
		_, err := exec.LookPath(name)
		return err == nil
	}
}
