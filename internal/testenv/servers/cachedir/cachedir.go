// Package cachedir locates the cache the harnesses keep heavy binaries in,
// outside the repository and keyed by version: $FINALIZER_CACHE, else
// ~/.cache/checkpoint-finalizer (the scripts under scripts/ use the same).
package cachedir

import (
	"os"
	"path/filepath"
)

// Env overrides the cache root.
const Env = "FINALIZER_CACHE"

// Root is the cache root.
func Root() string {
	if d := os.Getenv(Env); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		home = os.TempDir()
	}
	return filepath.Join(home, ".cache", "checkpoint-finalizer")
}

// ArtifactsEnv overrides where tests keep their artifacts.
const ArtifactsEnv = "FINALIZER_ARTIFACTS"

// Artifacts is the folder tests keep what an operator or CI looks at after
// a run (the Web UI test's screenshots) in, one subfolder per test, each
// run replacing the last: $FINALIZER_ARTIFACTS, else <Root>/artifacts.
// Like the cache, it is outside the repository.
func Artifacts() string {
	if d := os.Getenv(ArtifactsEnv); d != "" {
		return d
	}
	return filepath.Join(Root(), "artifacts")
}
