package devserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// goInstall builds the CLI with `go install` into a staging folder next to
// path and renames it into place, so a killed build never leaves a
// half-written binary that a later caller would take for a cached one.
func goInstall(ctx context.Context, path string, progress io.Writer) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("install temporal CLI: %w", err)
	}
	staging, err := os.MkdirTemp(dir, ".staging.")
	if err != nil {
		return fmt.Errorf("install temporal CLI: %w", err)
	}
	defer os.RemoveAll(staging)

	start := time.Now()
	fmt.Fprintf(progress, "devserver: installing %s into %s (cold: ~12-18 min on 2 cores)\n", cliPackage, dir)
	cmd := exec.CommandContext(ctx, "go", "install", "-v", "-ldflags=-s -w", cliPackage)
	// Outside any module, and without an inherited -mod flag, which
	// `go install pkg@version` refuses.
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOBIN="+staging, "GOFLAGS=")
	out, err := cmd.StderrPipe()
	if err != nil {
		return fmt.Errorf("install temporal CLI: %w", err)
	}
	cmd.Stdout = cmd.Stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("install temporal CLI: start go install: %w", err)
	}
	counts := newInstallProgress(progress, start)
	counts.consume(out)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("install temporal CLI: go install %s: %w\n%s", cliPackage, err, counts.messages())
	}
	if err := os.Rename(filepath.Join(staging, "temporal"), path); err != nil {
		return fmt.Errorf("install temporal CLI: %w", err)
	}
	if err := checkCLI(ctx, path); err != nil {
		return fmt.Errorf("install temporal CLI: %w", err)
	}
	fmt.Fprintf(progress, "devserver: Temporal CLI installed in %s (%d packages compiled): %s\n",
		time.Since(start).Round(time.Second), counts.packages(), path)
	return nil
}

// installProgress turns `go install -v` output into a status line every
// 10 seconds: a cold install is silent for minutes otherwise.
type installProgress struct {
	w     io.Writer
	start time.Time

	mu                  sync.Mutex
	downloads, compiled int
	msgs                []string
}

func newInstallProgress(w io.Writer, start time.Time) *installProgress {
	return &installProgress{w: w, start: start}
}

// consume reads output until EOF, reporting every 10 seconds.
func (p *installProgress) consume(r io.Reader) {
	done := make(chan struct{})
	defer close(done)
	go func() {
		tick := time.NewTicker(10 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				p.report()
			}
		}
	}()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		p.line(sc.Text())
	}
}

// line classifies one output line: `go: downloading ...`, a package path
// (never contains a space), or a message worth keeping for an error.
func (p *installProgress) line(l string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case strings.HasPrefix(l, "go: downloading "):
		p.downloads++
	case l != "" && !strings.Contains(l, " "):
		p.compiled++
	default:
		if len(p.msgs) < 50 {
			p.msgs = append(p.msgs, l)
		}
	}
}

func (p *installProgress) report() {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "devserver: installing Temporal CLI: %d modules downloaded, %d packages compiled, %s\n",
		p.downloads, p.compiled, time.Since(p.start).Round(time.Second))
}

func (p *installProgress) packages() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.compiled
}

func (p *installProgress) messages() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.msgs, "\n")
}
