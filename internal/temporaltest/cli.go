package temporaltest

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/cachedir"
)

// CLIVersion is the Temporal CLI the harness installs and runs. Newer ones
// (v1.9.x) are refused by the module proxy because of replace directives.
const CLIVersion = "v1.5.1"

// cliPackage is what `go install` builds.
const cliPackage = "github.com/temporalio/cli/cmd/temporal@" + CLIVersion

// EnvCLI names an environment variable that points at an existing temporal
// binary, bypassing the cache (e.g. one provided by a CI image).
const EnvCLI = "TEMPORALTEST_CLI"

// verified remembers a binary this process has already seen answer
// --version, so that each test does not exec a 250 MB binary again.
var verified struct {
	sync.Mutex
	path string
}

// CachedCLI returns the path of the CLI binary and whether it is already
// installed, without installing anything (for -short runs that skip instead
// of waiting ~12 minutes).
func CachedCLI() (path string, ok bool) {
	path = cliPath()
	return path, executable(path)
}

// EnsureCLI returns the path of the Temporal CLI, installing it first when
// it is missing (cold: ~12-18 min on 2 cores). Install progress is written to
// progress (may be nil). Callers in several processes (go test runs the
// test binaries of several packages at once) wait for one install.
func EnsureCLI(ctx context.Context, progress io.Writer) (string, error) {
	if progress == nil {
		progress = io.Discard
	}
	path := cliPath()
	verified.Lock()
	defer verified.Unlock()
	if verified.path == path {
		return path, nil
	}
	if os.Getenv(EnvCLI) != "" {
		if err := checkCLI(ctx, path); err != nil {
			return "", fmt.Errorf("temporal CLI from $%s: %w", EnvCLI, err)
		}
		verified.path = path
		return path, nil
	}
	if checkCLI(ctx, path) != nil {
		if err := installLocked(ctx, path, progress); err != nil {
			return "", err
		}
	}
	verified.path = path
	return path, nil
}

// installLocked installs the CLI under the cross-process install lock,
// unless another process installed it while this one waited.
func installLocked(ctx context.Context, path string, progress io.Writer) error {
	unlock, err := lockFile(ctx, filepath.Dir(path)+".lock", progress)
	if err != nil {
		return fmt.Errorf("temporal CLI install lock: %w", err)
	}
	defer unlock()
	if err := waitForeignInstall(ctx, progress); err != nil {
		return err
	}
	if checkCLI(ctx, path) == nil {
		return nil
	}
	return goInstall(ctx, path, progress)
}

// checkCLI runs `temporal --version`: a file that merely exists may be a
// binary another process is still writing.
func checkCLI(ctx context.Context, path string) error {
	if !executable(path) {
		return fmt.Errorf("%s is not an executable file", path)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s --version: %w: %s", path, err, out)
	}
	return nil
}

// cliPath is $TEMPORALTEST_CLI, or the binary in the cache folder shared
// with scripts/temporal-cli.sh.
func cliPath() string {
	if p := os.Getenv(EnvCLI); p != "" {
		return p
	}
	return filepath.Join(cachedir.Root(), "temporal", CLIVersion, "temporal")
}

func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}
