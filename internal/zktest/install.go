package zktest

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

const (
	jar        = "/usr/share/java/zookeeper.jar"
	loggingJar = "/usr/share/java/slf4j-simple.jar"
)

// Ensure installs the Debian zookeeper package when its jar is missing.
// Test binaries of several packages run at once, so the install is
// serialized with a lock file.
func Ensure() error {
	if installed() {
		return nil
	}
	lock, err := os.OpenFile(os.TempDir()+"/zktest-install.lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("install zookeeper: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("install zookeeper: lock: %w", err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) //nolint:errcheck // released on close anyway
	if installed() {
		return nil
	}
	fmt.Fprintln(os.Stderr, "zktest: installing Debian package zookeeper (once per machine)")
	script := "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends zookeeper"
	if os.Geteuid() != 0 {
		script = "sudo -n sh -c '" + script + "'"
	}
	cmd := exec.Command("sh", "-c", script)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("install zookeeper with apt-get: %w", err)
	}
	if !installed() {
		return fmt.Errorf("install zookeeper: %s or %s still missing", jar, loggingJar)
	}
	return nil
}

func installed() bool {
	for _, p := range []string{jar, loggingJar} {
		if _, err := os.Stat(p); err != nil {
			return false
		}
	}
	_, err := exec.LookPath("java")
	return err == nil
}
