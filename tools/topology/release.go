package topology

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/cachedir"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/workerproc"
)

// BuildWorkerAt builds finalizer-worker as this repository's commit had it
// (git archive, so the working tree is untouched) and returns its path:
// the build a rolling upgrade starts from. The binary is cached by commit
// beside the servers.
func BuildWorkerAt(ctx context.Context, commit string) (string, error) {
	dir := filepath.Join(cachedir.Root(), "finalizer-worker", commit)
	bin := filepath.Join(dir, "finalizer-worker")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	src, err := os.MkdirTemp("", "finalizer-"+commit[:min(len(commit), 12)]+"-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(src)
	archive := exec.CommandContext(ctx, "sh", "-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", moduleRoot(), commit, src)
	if out, err := archive.CombinedOutput(); err != nil {
		return "", fmt.Errorf("git archive %s: %w\n%s", commit, err, out)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	next := bin + ".next"
	if err := workerproc.BuildTo(ctx, next, src); err != nil {
		return "", fmt.Errorf("at %s: %w", commit, err)
	}
	return bin, os.Rename(next, bin)
}
