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
