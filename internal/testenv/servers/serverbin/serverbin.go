// Package serverbin finds Temporal's own server binaries (temporal-server
// and temporal-sql-tool, and the Web UI server), built from the module
// proxy at the versions scripts/temporal-server.sh pins and cached outside
// the repo, for the production topology and the tests that run the real
// server.
package serverbin

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
)

// UIServer is the Web UI server's binary in the folder EnsureUI returns.
const UIServer = "temporal-ui-server"

// ScriptsDir is the repository's scripts/ folder, found from this file.
func ScriptsDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "scripts")
}

// Ensure returns the folder of the cached temporal-server and
// temporal-sql-tool, building them with scripts/temporal-server.sh when
// missing (its progress goes to progress).
func Ensure(ctx context.Context, progress io.Writer) (string, error) {
	if err := realserver.Refuse("temporal-server"); err != nil {
		return "", err
	}
	return install(ctx, progress, "server")
}

// EnsureUI returns the folder of the cached Web UI server (UIServer),
// building it with `scripts/temporal-server.sh ui` when missing.
func EnsureUI(ctx context.Context, progress io.Writer) (string, error) {
	if err := realserver.Refuse(UIServer); err != nil {
		return "", err
	}
	return install(ctx, progress, "ui")
}

// install runs scripts/temporal-server.sh for target and returns the
// folder it prints last.
func install(ctx context.Context, progress io.Writer, target string) (string, error) {
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(ScriptsDir(), "temporal-server.sh"), target)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = progress
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("scripts/temporal-server.sh %s: %w", target, err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	return lines[len(lines)-1], nil
}
