package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/embedded"
)

// ErrBackupRefused: the worker asked refused to serve a backup (not an
// embedded store, or a client that is not on its loopback).
var ErrBackupRefused = errors.New("the worker refused the backup")

// BackupRequest says where a backup of the embedded store comes from and
// where it goes.
type BackupRequest struct {
	// To is the file the copy is written to, atomically: it appears whole
	// and verified, or not at all.
	To string
	// From is a running worker's metrics endpoint (http://127.0.0.1:9464),
	// which copies its store itself: its lock keeps every other process
	// out of the file.
	From string
	// StorePath is the store file of a stopped worker, copied when From is
	// empty; a worker holding it fails the backup with embedded.ErrLocked.
	StorePath string
}

// Backup writes a consistent copy of the embedded store to req.To and
// returns its size: streamed from a running worker (From) or copied from
// the file of a stopped one (StorePath). Copying a backup (StorePath) over
// a stopped worker's store file (To) restores it. The copy is written beside To,
// fsynced, verified to be an embedded store (embedded.VerifyFile), and only
// then renamed over To, so a failed backup never leaves a file that looks
// like one, nor replaces a good one.
func Backup(ctx context.Context, req BackupRequest) (int64, error) {
	if req.To == "" {
		return 0, &stores.InvalidError{Field: "--to", Rule: "names the backup file"}
	}
	if req.From == "" && req.StorePath == "" {
		return 0, &stores.InvalidError{Field: "--from", Rule: "names a running worker's metrics endpoint, or --embedded-path a stopped worker's store"}
	}
	if req.From == "" && samePath(req.To, req.StorePath) {
		return 0, &stores.InvalidError{Field: "--to", Rule: "must not be the store file itself"}
	}
	copyTo := func(w io.Writer) (int64, error) {
		return embedded.BackupFile(ctx, req.StorePath, w, nil)
	}
	if req.From != "" {
		copyTo = func(w io.Writer) (int64, error) { return download(ctx, req.From, w) }
	}
	return writeAtomically(req.To, copyTo)
}

// download streams the worker's /backup into w.
func download(ctx context.Context, from string, w io.Writer) (int64, error) {
	u, err := backupURL(from)
	if err != nil {
		return 0, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, fmt.Errorf("backup from %s: %w", u, err)
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		err := fmt.Errorf("backup from %s: %s: %s", u, resp.Status, strings.TrimSpace(string(body)))
		if resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusNotFound {
			return 0, fmt.Errorf("%w: %w", ErrBackupRefused, err)
		}
		return 0, err
	}
	// With a Content-Length, a body cut short is io.ErrUnexpectedEOF here.
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return n, fmt.Errorf("backup from %s after %d bytes: %w", u, n, err)
	}
	return n, nil
}

// backupURL is from's /backup; from may name it already.
func backupURL(from string) (string, error) {
	u, err := url.Parse(from)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", &stores.InvalidError{Field: "--from", Rule: fmt.Sprintf("%q is not a worker's metrics endpoint (http://host:port)", from)}
	}
	if !strings.HasSuffix(u.Path, BackupPath) {
		u.Path = strings.TrimSuffix(u.Path, "/") + BackupPath
	}
	return u.String(), nil
}

// writeAtomically writes what fill writes to a temporary file beside to,
// fsyncs and verifies it, then renames it over to and fsyncs the
// directory, so the rename itself survives a crash.
func writeAtomically(to string, fill func(io.Writer) (int64, error)) (n int64, err error) {
	dir := filepath.Dir(to)
	f, err := os.CreateTemp(dir, "."+filepath.Base(to)+".partial-*")
	if err != nil {
		return 0, fmt.Errorf("backup file: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	// The copy holds every job's references: no wider than the store.
	if err := f.Chmod(0o600); err != nil {
		return 0, fmt.Errorf("backup file: %w", err)
	}
	if n, err = fill(f); err != nil {
		return n, err
	}
	if err := f.Sync(); err != nil {
		return n, fmt.Errorf("backup file: %w", err)
	}
	if err := f.Close(); err != nil {
		return n, fmt.Errorf("backup file: %w", err)
	}
	if err := embedded.VerifyFile(tmp); err != nil {
		return n, fmt.Errorf("backup not written: %w", err)
	}
	// To may be a store file (a restore): never one a worker has open.
	if err := embedded.EnsureUnlocked(to); err != nil {
		return n, fmt.Errorf("backup not written over %s: %w", to, err)
	}
	if err := os.Rename(tmp, to); err != nil {
		return n, fmt.Errorf("backup file: %w", err)
	}
	return n, syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("backup directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("backup directory %s: %w", dir, err)
	}
	return nil
}

func samePath(a, b string) bool {
	a, errA := filepath.Abs(a)
	b, errB := filepath.Abs(b)
	return errA == nil && errB == nil && a == b
}
