package topology

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A fault is a kill of a process that runs: killing or stopping one that
// does not is an error, never a quiet success; down stops what is left.
func TestKillOfAStoppedProcessIsAnError(t *testing.T) {
	dir := t.TempDir()
	p := process{
		Name: "sleeper", Args: []string{"/bin/sh", "-c", "sleep 300; : " + dir},
		Log: filepath.Join(dir, "sleeper.log"), PIDFile: filepath.Join(dir, "sleeper.pid"), Marker: dir,
	}
	require.NoError(t, p.start())
	// The new process shows its command line (the marker) a moment after
	// it starts: seen once as 0 right after start on a loaded machine.
	require.Eventually(t, func() bool { return p.pid() != 0 }, 5*time.Second, 10*time.Millisecond)
	first := p.pid()
	require.NoError(t, p.kill())
	assert.Zero(t, p.pid(), "killed")

	err := p.kill()
	assert.True(t, errors.Is(err, errNotRunning), "a second kill: %v", err)
	assert.True(t, errors.Is(p.stop(0), errNotRunning), "a stop of a stopped process")
	assert.NoError(t, p.shutdown(0), "down stops what runs, nothing else")

	require.NoError(t, p.start())
	require.Eventually(t, func() bool { return p.pid() != 0 }, 5*time.Second, 10*time.Millisecond)
	second := p.pid()
	assert.NotEqual(t, first, second, "started again: a new process")
	assert.NoError(t, p.shutdown(0))
	assert.Zero(t, p.pid())

	pg := Postgres{Data: filepath.Join(dir, "no-cluster")}
	assert.True(t, errors.Is(pg.stop("immediate"), errNotRunning), "a crash of a PostgreSQL that does not run")
}
