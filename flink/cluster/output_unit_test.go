package cluster_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jobFolder writes what FileCheckingJob would: emitted and committed/<id>.
func jobFolder(t *testing.T, emitted string, commits map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "committed"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "emitted"), []byte(emitted), 0o644))
	for id, lines := range commits {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "committed", id), []byte(lines), 0o644))
	}
	return dir
}

func TestExactness(t *testing.T) {
	// Six elements over four keys: keys 0 and 1 count to 2, keys 2 and 3 to 1.
	all := map[string]string{"3": "0 1\n1 1\n2 1\n", "4": "3 1\n0 2\n1 2\n"}
	assert.Equal(t, "exact", exactness(jobFolder(t, "6", all)))
	// A commit the TaskManager was writing when it stopped does not count.
	withTmp := map[string]string{"3": all["3"], "4": all["4"], "45017.tmp": "0 1\n"}
	assert.Equal(t, "exact", exactness(jobFolder(t, "6", withTmp)))

	twice := map[string]string{"3": all["3"], "4": all["4"], "5": "0 2\n"}
	assert.Equal(t, "7 records committed for 6 emitted; key 0 count 2 committed 2 times", exactness(jobFolder(t, "6", twice)))
	lost := map[string]string{"3": all["3"]}
	assert.Equal(t, "3 records committed for 6 emitted; key 0 count 2 committed 0 times, key 1 count 2 committed 0 times, key 3 count 1 committed 0 times",
		exactness(jobFolder(t, "6", lost)))
	assert.Contains(t, exactness(t.TempDir()), "the source never ended")
}

func TestDuplicates(t *testing.T) {
	// A canceled job: no emitted file, a prefix committed.
	dir := jobFolder(t, "", map[string]string{"3": "0 1\n1 1\n", "4": "2 1\n"})
	assert.Empty(t, duplicates(dir))
	again := jobFolder(t, "", map[string]string{"3": "0 1\n1 1\n", "4": "1 1\n2 1\n"})
	assert.Equal(t, "key 1 count 1 committed 2 times", duplicates(again))
}
