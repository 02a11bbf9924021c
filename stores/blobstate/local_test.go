package blobstate

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests here are about what only a local bucket does: fsync, plain
// on-disk paths, and cleaning up directories.

func TestLocalHandleIsAPlainFileAtRootPlusKey(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := openURL(t, "file://"+filepath.ToSlash(root))
	h := seedCheckpoint(t, s, "orders", 3, 21, 1)
	key, err := s.Write(ctx, h)
	require.NoError(t, err)

	onDisk, err := os.ReadFile(root + "/" + key)
	require.NoError(t, err, "the handle is at root + \"/\" + key")
	want, err := EncodeEnvelope(h)
	require.NoError(t, err)
	assert.Equal(t, want, onDisk)

	// metadata=skip: no sidecars; no_tmp_dir: no temp file left behind.
	require.NoError(t, filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		assert.False(t, strings.HasSuffix(path, ".attrs"), "sidecar %s", path)
		assert.False(t, strings.HasSuffix(path, ".tmp"), "temp file %s", path)
		return nil
	}))
}

func TestLocalWriteFsyncsFileAndEveryDirectoryToRoot(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := openURL(t, "file://"+filepath.ToSlash(root))
	var synced []string
	s.onSync = func(p string) { synced = append(synced, p) }

	h := seedCheckpoint(t, s, "orders", 3, 22, 0)
	key, err := s.Write(ctx, h)
	require.NoError(t, err)
	assert.Equal(t, []string{
		root + "/" + key,
		root + "/handles/prod-eu/orders/00000000000000000003",
		root + "/handles/prod-eu/orders",
		root + "/handles/prod-eu",
		root + "/handles",
		root,
	}, synced)
}

func TestLocalWriteFailsWhenItCannotFsync(t *testing.T) {
	// A handle that vanished between rename and fsync must not be
	// reported written.
	ctx := context.Background()
	root := t.TempDir()
	s := openURL(t, "file://"+filepath.ToSlash(root))
	h := seedCheckpoint(t, s, "orders", 3, 23, 0)
	s.onSync = func(p string) {
		if p == root+"/"+h.Key() {
			require.NoError(t, os.Remove(p))
		}
	}
	_, err := s.Write(ctx, h)
	require.ErrorIs(t, err, fs.ErrNotExist)
	assert.Contains(t, err.Error(), "fsync")
}

func TestLocalDiscardRemovesTheCheckpointDirectory(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := openURL(t, "file://"+filepath.ToSlash(root))
	h := seedCheckpoint(t, s, "orders", 1, 24, 6)
	put(t, s, "flink/orders/shared/sst-1", []byte("shared"))
	_, err := s.Write(ctx, h)
	require.NoError(t, err)

	_, err = s.Discard(ctx, h)
	require.NoError(t, err)
	assert.NoDirExists(t, root+"/flink/orders/chk-24")
	assert.FileExists(t, root+"/flink/orders/shared/sst-1")
	assert.DirExists(t, root+"/handles/prod-eu/orders/00000000000000000001", "other handles live beside it")
}

func TestLocalDiscardFailsOnFilesTheBucketCannotList(t *testing.T) {
	// fileblob hides files ending in ".attrs" from listings. A Discard that
	// cannot delete everything must say so, and keep the handle that tells
	// a retry what remains.
	ctx := context.Background()
	root := t.TempDir()
	s := openURL(t, "file://"+filepath.ToSlash(root))
	h := seedCheckpoint(t, s, "orders", 1, 25, 2)
	_, err := s.Write(ctx, h)
	require.NoError(t, err)
	hidden := root + "/flink/orders/chk-25/op-0/state.attrs"
	require.NoError(t, os.WriteFile(hidden, []byte("x"), 0o644))

	_, err = s.Discard(ctx, h)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "did not list")
	assert.True(t, exists(t, s, h.Key()), "the handle stays until the data is gone")

	require.NoError(t, os.Remove(hidden))
	_, err = s.Discard(ctx, h)
	require.NoError(t, err)
	assert.NoDirExists(t, root+"/flink/orders/chk-25")
	assert.False(t, exists(t, s, h.Key()))
}

func TestLocalDiscardDoesNotFollowSymlinks(t *testing.T) {
	ctx := context.Background()
	root, outside := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(outside+"/precious", []byte("keep"), 0o644))
	s := openURL(t, "file://"+filepath.ToSlash(root))
	h := seedCheckpoint(t, s, "orders", 1, 26, 1)
	require.NoError(t, os.Symlink(outside, root+"/flink/orders/chk-26/link"))

	// fileblob lists the link as an object and deletes the link itself.
	_, err := s.Discard(ctx, h)
	require.NoError(t, err)
	assert.FileExists(t, outside+"/precious")
	assert.NoDirExists(t, root+"/flink/orders/chk-26")
}
