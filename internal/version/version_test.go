package version_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A binary built from a clone says which commit it is: what an operator
// reads from `finalizer-worker version`, `finalizer --version` (every
// binary of the module answers --version) and the finalizer_build_info
// metric.
func TestBinariesNameTheirCommit(t *testing.T) {
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
