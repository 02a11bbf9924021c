package cluster_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// keys is the job's number of keys (FileCheckingJob.KEYS).
const keys = 4

// exactness says "exact" when a job folder's committed output holds every
// (key, count) of the elements its source emitted exactly once and
// nothing else, or what is wrong: the check of CheckingJob.outputProblem
// on the files FileCheckingJob writes.
func exactness(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "emitted"))
	if err != nil {
		return "the source never ended: " + err.Error()
	}
	emitted, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return "emitted: " + err.Error()
	}
	seen, total, err := committed(filepath.Join(dir, "committed"))
	if err != nil {
		return err.Error()
	}
	var problems []string
	for k := range int64(keys) {
		n := emitted / keys
		if k < emitted%keys {
			n++
		}
		for c := int64(1); c <= n; c++ {
			if times := seen[[2]int64{k, c}]; times != 1 {
				problems = append(problems, fmt.Sprintf("key %d count %d committed %d times", k, c, times))
			}
		}
	}
	if total == emitted && len(problems) == 0 {
		return "exact"
	}
	return fmt.Sprintf("%d records committed for %d emitted; %s", total, emitted, strings.Join(problems[:min(3, len(problems))], ", "))
}

// duplicates says which records a job folder's committed output holds more
// than once, "" when none: all a canceled job's output can be checked for.
func duplicates(dir string) string {
	seen, _, err := committed(filepath.Join(dir, "committed"))
	if err != nil {
		return err.Error()
	}
	var twice []string
	for r, times := range seen {
		if times > 1 {
			twice = append(twice, fmt.Sprintf("key %d count %d committed %d times", r[0], r[1], times))
		}
	}
	if len(twice) == 0 {
		return ""
	}
	sort.Strings(twice)
	return strings.Join(twice[:min(3, len(twice))], ", ")
}

// committed counts each committed (key, count) over every checkpoint's
// file, and all records.
func committed(dir string) (map[[2]int64]int, int64, error) {
	files, err := filepath.Glob(filepath.Join(dir, "[0-9]*"))
	if err != nil {
		return nil, 0, err
	}
	seen := map[[2]int64]int{}
	var total int64
	for _, f := range files {
		if strings.HasSuffix(f, ".tmp") {
			continue // a commit the TaskManager was writing when it stopped
		}
		file, err := os.Open(f)
		if err != nil {
			return nil, 0, err
		}
		s := bufio.NewScanner(file)
		for s.Scan() {
			var k, c int64
			if _, err := fmt.Sscanf(s.Text(), "%d %d", &k, &c); err != nil {
				file.Close()
				return nil, 0, fmt.Errorf("%s: %q: %w", f, s.Text(), err)
			}
			seen[[2]int64{k, c}]++
			total++
		}
		file.Close()
		if err := s.Err(); err != nil {
			return nil, 0, err
		}
	}
	return seen, total, nil
}
