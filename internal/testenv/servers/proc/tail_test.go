package proc_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
)

func TestLastLines(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"a\nb\nc\n", 2, "b\nc"},
		{"a\nb\nc", 2, "b\nc"},
		{"a\nb\n", 5, "a\nb"},
		{"a\n\n\n", 1, "a"},
		{"", 3, ""},
		{"a\nb\n", 0, ""},
	} {
		assert.Equal(t, tc.want, proc.LastLines(tc.s, tc.n), "%q, %d", tc.s, tc.n)
	}
}

// Tail reads a log longer than its block from the end and keeps only the
// last lines, also when a block cuts a line.
func TestTailOfALongLog(t *testing.T) {
	log := filepath.Join(t.TempDir(), "server.log")
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, "line %d %s\n", i, strings.Repeat("x", i%50))
	}
	require.NoError(t, os.WriteFile(log, []byte(b.String()), 0o644))
	want := proc.LastLines(b.String(), 30)
	assert.Equal(t, want, proc.Tail(log, 30))
	assert.True(t, strings.HasPrefix(want, "line 19970 "))
	assert.Equal(t, proc.LastLines(b.String(), 9000), proc.Tail(log, 9000), "more lines than a block holds")
	assert.Equal(t, b.String()[:len(b.String())-1], proc.Tail(log, 1<<20), "the whole log")
}

func TestTailOfAShortOrMissingLog(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short.log")
	require.NoError(t, os.WriteFile(short, []byte("one\ntwo"), 0o644))
	assert.Equal(t, "one\ntwo", proc.Tail(short, 10))
	empty := filepath.Join(dir, "empty.log")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	assert.Equal(t, "", proc.Tail(empty, 10))
	assert.Contains(t, proc.Tail(filepath.Join(dir, "missing.log"), 10), "no log", "the read error in place of the lines")
}
