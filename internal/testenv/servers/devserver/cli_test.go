package devserver

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A cached binary that answers --version is used as is, without a lock or
// an install.
func TestEnsureCLIUsesCachedBinary(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("FINALIZER_CACHE", cache)
	t.Setenv(EnvCLI, "")
	bin := filepath.Join(cache, "temporal", CLIVersion, "temporal")
	require.NoError(t, os.MkdirAll(filepath.Dir(bin), 0o755))
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\necho temporal version 1.5.1\n"), 0o755))

	path, ok := CachedCLI()
	assert.True(t, ok)
	assert.Equal(t, bin, path)
	got, err := EnsureCLI(context.Background(), nil)
	require.NoError(t, err)
	assert.Equal(t, bin, got)
	_, err = os.Stat(filepath.Dir(bin) + ".lock")
	assert.True(t, os.IsNotExist(err), "took the install lock for a cached binary")
}

func TestEnsureCLIRejectsBrokenOverride(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "temporal")
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\nexit 3\n"), 0o755))
	t.Setenv(EnvCLI, bin)
	_, err := EnsureCLI(context.Background(), nil)
	assert.ErrorContains(t, err, "--version")
}

// With nothing cached, a `temporal` on PATH that embeds a supported server
// is used instead of a ~15 min build; an older one is not.
func TestEnsureCLIUsesSupportedCLIOnPath(t *testing.T) {
	t.Setenv("FINALIZER_CACHE", t.TempDir()) // nothing cached
	t.Setenv(EnvCLI, "")
	dir := t.TempDir()
	bin := filepath.Join(dir, "temporal")
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\necho 'temporal version 1.5.1 (Server 1.29.1, UI 2.42.1)'\n"), 0o755))
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	got, err := EnsureCLI(context.Background(), nil)
	require.NoError(t, err)
	assert.Equal(t, bin, got)

	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\necho 'temporal version 1.1.0 (Server 1.25.0, UI 2.30.0)'\n"), 0o755))
	assert.NotEqual(t, bin, cliPath(), "a CLI embedding server 1.25 is not used")
	assert.ErrorContains(t, supportedCLI(bin), "older than "+MinServer)
}
