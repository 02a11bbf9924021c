package devserver

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/cachedir"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
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
	if err := realserver.Refuse("Temporal CLI build"); err != nil {
		return err
	}
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

// cliPath is $TEMPORALTEST_CLI; else the binary in the cache folder shared
// with scripts/temporal-cli.sh when it is there; else a `temporal` on PATH
// that embeds a supported server; else the cache folder's path, where
// EnsureCLI installs it.
func cliPath() string {
	if p := os.Getenv(EnvCLI); p != "" {
		return p
	}
	cached := filepath.Join(cachedir.Root(), "temporal", CLIVersion, "temporal")
	if executable(cached) {
		return cached
	}
	if p, err := exec.LookPath("temporal"); err == nil && supportedCLI(p) == nil {
		return p
	}
	return cached
}

// MinServer is the oldest Temporal server a CLI on PATH may embed: the one
// CLIVersion embeds, which the tests and the compose file run.
const MinServer = "1.29"

var serverVersion = regexp.MustCompile(`\(Server (\d+)\.(\d+)\.\d+`)

// supportedCLI reports whether path is a Temporal CLI whose embedded dev
// server is at least MinServer ("temporal version 1.5.1 (Server 1.29.1,
// UI 2.42.1)"; a go-installed one says 0.0.0-DEV for itself).
func supportedCLI(path string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return fmt.Errorf("%s --version: %w", path, err)
	}
	m := serverVersion.FindSubmatch(out)
	if m == nil {
		return fmt.Errorf("%s --version names no server: %q", path, out)
	}
	major, _ := strconv.Atoi(string(m[1]))
	minor, _ := strconv.Atoi(string(m[2]))
	wantMajor, wantMinor, _ := strings.Cut(MinServer, ".")
	wm, _ := strconv.Atoi(wantMajor)
	wn, _ := strconv.Atoi(wantMinor)
	if major < wm || major == wm && minor < wn {
		return fmt.Errorf("%s embeds server %s.%s, older than %s", path, m[1], m[2], MinServer)
	}
	return nil
}

func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}
