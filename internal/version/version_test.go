package version_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
)

// A binary built from a clone says which commit it is: what an operator
// reads from `finalizer-worker version`, `finalizer --version` (every
// binary of the module answers --version) and the finalizer_build_info
// metric.
func TestBinariesNameTheirCommit(t *testing.T) {
	realserver.RequireBuild(t, "every binary of the module")
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	require.NoError(t, err, "the tests run in a clone")
	head := strings.TrimSpace(string(out))
	dir := t.TempDir()
	for pkg, args := range map[string][]string{
		"github.com/checkpoint-finalizer/finalizer/worker/cmd/finalizer-worker": {"version"},
		"github.com/checkpoint-finalizer/finalizer/client/cmd/finalizer":        {"--version"},
		"github.com/checkpoint-finalizer/finalizer/cmd/finalizer-dev":           {"--version"},
		"github.com/checkpoint-finalizer/finalizer/cmd/finalizer-bench":         {"--version"},
		"github.com/checkpoint-finalizer/finalizer/cmd/finalizer-faults":        {"--version"},
		"github.com/checkpoint-finalizer/finalizer/cmd/finalizer-topology":      {"-version"},
	} {
		bin := filepath.Join(dir, filepath.Base(pkg))
		// Explicitly: these machines set GOFLAGS=-buildvcs=false.
		build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, pkg)
		b, err := build.CombinedOutput()
		require.NoError(t, err, "%s", b)
		b, err = exec.Command(bin, args...).CombinedOutput()
		require.NoError(t, err, "%s", b)
		line := strings.TrimSpace(string(b))
		assert.Regexp(t, `^`+filepath.Base(pkg)+` \S+ \(`+head+`(-dirty)?, go1\.\d+`, line)
	}
}

// A binary built from a clone checked out at a release tag prints the tag:
// the go command stamps the module version from version control.
func TestBinaryBuiltAtTagPrintsIt(t *testing.T) {
	realserver.RequireBuild(t, "the CLI from a tagged clone")
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	require.NoError(t, err, "the tests run in a clone")
	head := strings.TrimSpace(string(out))
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	require.NoError(t, err)
	clone := filepath.Join(t.TempDir(), "src")
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %s: %s", strings.Join(args, " "), b)
	}
	git("", "clone", "--quiet", "--no-checkout", strings.TrimSpace(string(top)), clone)
	git(clone, "checkout", "--quiet", head)
	git(clone, "-c", "user.name=test", "-c", "user.email=test@example.com", "tag", "-a", "-m", "release", "v0.99.0")

	bin := filepath.Join(t.TempDir(), "finalizer")
	build := exec.Command("go", "build", "-buildvcs=true", "-trimpath", "-o", bin, "./client/cmd/finalizer")
	build.Dir = clone
	b, err := build.CombinedOutput()
	require.NoError(t, err, "%s", b)
	b, err = exec.Command(bin, "--version").CombinedOutput()
	require.NoError(t, err, "%s", b)
	assert.Regexp(t, `^finalizer v0\.99\.0 \(`+head+`, go1\.\d+`, strings.TrimSpace(string(b)))
}
