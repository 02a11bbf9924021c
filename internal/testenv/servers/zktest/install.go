package zktest

import (
	"os"
	"os/exec"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/debian"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
)

const (
	jar        = "/usr/share/java/zookeeper.jar"
	loggingJar = "/usr/share/java/slf4j-simple.jar"
)

// Ensure installs the Debian zookeeper package when its jar is missing.
func Ensure() error {
	if err := realserver.Refuse("ZooKeeper"); err != nil {
		return err
	}
	return debian.Ensure(installed, "zookeeper")
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
