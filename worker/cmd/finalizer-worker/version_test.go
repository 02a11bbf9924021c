package main

import (
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/devserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/temporaltest"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/workerproc"
)

// releaseVersion is what a release build sets with -ldflags -X.
const releaseVersion = "v9.8.7-rc.1"

// buildRelease builds the worker as a release build does, naming its
// version with -ldflags -X.
func buildRelease(t *testing.T) string {
	t.Helper()
	realserver.RequireBuild(t, "the worker as a release does")
	bin := filepath.Join(t.TempDir(), "finalizer-worker")
	build := exec.Command("go", "build", "-o", bin,
		"-ldflags", "-X github.com/checkpoint-finalizer/finalizer/internal/version.version="+releaseVersion, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// A release build's --version prints the version it was given.
func TestReleaseVersionFlag(t *testing.T) {
	bin := buildRelease(t)
	for _, arg := range []string{"--version", "version"} {
		out, err := exec.Command(bin, arg).CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.Regexp(t, `^finalizer-worker `+regexp.QuoteMeta(releaseVersion)+` \(\S+, go1\.\d+`, strings.TrimSpace(string(out)))
	}
}

// A release build's finalizer_build_info carries its version: the worker
// started as a process against a real dev server.
func TestReleaseVersionInBuildInfo(t *testing.T) {
	bin := buildRelease(t)
	srv := temporaltest.Start(t, devserver.Options{SearchAttributes: contract.SearchAttributes()})
	dir := t.TempDir()
	metrics := workerproc.Start(t, bin, "-temporal-address="+srv.HostPort,
		"-embedded-path="+filepath.Join(dir, "refs.db"),
		"-state-bucket=file://"+filepath.Join(dir, "bucket")+"?create_dir=true")
	assert.Regexp(t, `(?m)^finalizer_build_info\{[^}]*version="`+regexp.QuoteMeta(releaseVersion)+`"[^}]*\} 1$`,
		scrape(t, "http://"+metrics+"/metrics"))
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", url, b)
	return string(b)
}
