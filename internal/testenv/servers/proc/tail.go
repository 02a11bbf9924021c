package proc

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
)

// tailBlock is how much of a log Tail reads at a time, from its end: a
// long log is not read whole for the few lines an error message shows.
const tailBlock = 64 << 10

// Tail is the last n lines of the log at path, for an error message about
// the process that wrote it. A log that cannot be read yields that error
// in place of its lines: the message it decorates is the one to report.
func Tail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	defer f.Close()
	end, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return fmt.Sprintf("(log unreadable: %v)", err)
	}
	// Read blocks backwards until they hold n whole lines: n line ends
	// before the last line, whatever the first block cut before them.
	var b []byte
	for off := end; off > 0 && bytes.Count(bytes.TrimRight(b, "\n"), []byte("\n")) < n; {
		size := min(off, tailBlock)
		off -= size
		block := make([]byte, size, size+int64(len(b)))
		if _, err := f.ReadAt(block, off); err != nil {
			return fmt.Sprintf("(log unreadable: %v)", err)
		}
		b = append(block, b...)
	}
	return LastLines(string(b), n)
}

// LastLines is the last n lines of s, a command's output, without the
// final line end.
func LastLines(s string, n int) string {
	if n <= 0 {
		return ""
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
