package blobstate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// localPath returns the file of a key in a local bucket. Validated keys are
// plain path characters, which fileblob stores unescaped.
func (s *Store) localPath(key string) string {
	return filepath.Join(s.root, filepath.FromSlash(key))
}

// syncLocal makes a just-renamed blob durable: fileblob renames its temp
// file into place but never fsyncs. The file's data, then the entry of the
// file in its directory, then the entry of every directory up to the root
// (MkdirAll may have created any of them, possibly in a concurrent write
// that has not synced yet) must reach the disk before the write is
// reported. A no-op for remote buckets, whose writes are durable on success.
func (s *Store) syncLocal(key string) error {
	if s.root == "" {
		return nil
	}
	path := s.localPath(key)
	if err := s.syncFile(path); err != nil {
		return err
	}
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		if err := s.syncDir(dir); err != nil {
			return err
		}
		if dir == s.root || !strings.HasPrefix(dir, s.root) {
			return nil
		}
	}
}

// syncFile fsyncs a file through a fresh descriptor: fsync flushes the
// file's inode and data whichever descriptor asks.
func (s *Store) syncFile(path string) error {
	if s.onSync != nil {
		s.onSync(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("fsync %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close() // the sync error is the one to report
		return fmt.Errorf("fsync %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s after fsync: %w", path, err)
	}
	return nil
}

func (s *Store) syncDir(dir string) error { return s.syncFile(dir) }

// removeEmptyDirs removes the directories of a discarded prefix in a local
// bucket, deepest first, once fileblob has deleted the files it lists. A
// directory that is not empty holds a file fileblob did not list (a
// ".attrs" name, an unreadable subdirectory, a file written meanwhile): that
// is an error, not success, because data of the checkpoint remains.
func (s *Store) removeEmptyDirs(prefix string) error {
	if s.root == "" {
		return nil
	}
	top := s.localPath(prefix)
	var dirs []string
	err := filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		// WalkDir does not follow symbolic links, so a link inside the
		// prefix is never a way out of it.
		if d.IsDir() {
			dirs = append(dirs, path)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) && len(dirs) == 0 {
		return nil
	}
	if err != nil {
		return fmt.Errorf("walk discarded prefix %s: %w", top, err)
	}
	slices.Reverse(dirs)
	for _, dir := range dirs {
		err := os.Remove(dir)
		switch {
		case err == nil, errors.Is(err, fs.ErrNotExist):
		case errors.Is(err, syscall.ENOTEMPTY), errors.Is(err, syscall.EEXIST):
			return fmt.Errorf("directory %s still holds files the bucket did not list: %w", dir, err)
		default:
			return fmt.Errorf("remove discarded directory %s: %w", dir, err)
		}
	}
	return nil
}
