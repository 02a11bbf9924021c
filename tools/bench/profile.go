package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"
)

// profile starts a CPU profile of this process (the worker, its triggers)
// into cfg.ProfileDir/<name>.worker.pprof, and, when the Temporal server
// serves pprof, of the server over the same window into
// <name>.server.pprof; the returned func stops and writes them. Without a
// ProfileDir it does nothing.
func (sr *storeRun) profile(ctx context.Context, name string, window time.Duration) (func() error, error) {
	dir := sr.cfg.ProfileDir
	if dir == "" {
		return func() error { return nil }, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("profile folder: %w", err)
	}
	f, err := os.Create(filepath.Join(dir, name+".worker.pprof"))
	if err != nil {
		return nil, fmt.Errorf("worker profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("worker profile: %w", err)
	}
	server := sr.srv.temporal.profileServer(ctx, filepath.Join(dir, name+".server.pprof"), window)
	return func() error {
		pprof.StopCPUProfile()
		err := f.Close()
		if serr := <-server; err == nil {
			err = serr
		}
		return err
	}, nil
}
