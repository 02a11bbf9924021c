package ociimage

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrDebChecksum: a fetched or cached package is not the pinned one.
var ErrDebChecksum = errors.New("ociimage: package checksum differs from its pin")

// BasePackage is one pinned Debian package of the image's base
// (base-packages.txt).
type BasePackage struct {
	Name, Version, SHA256 string
}

// ReadPins reads a pin file: one "name version sha256" a line; blank lines
// and # comments are skipped.
func ReadPins(path string) ([]BasePackage, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("ociimage: pins: %w", err)
	}
	var out []BasePackage
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 || len(f[2]) != 64 {
			return nil, fmt.Errorf("ociimage: pins: %s:%d: want \"name version sha256\", got %q", path, n, line)
		}
		out = append(out, BasePackage{Name: f[0], Version: f[1], SHA256: f[2]})
	}
	return out, sc.Err()
}

// Fetch returns the path of p's .deb in cache (kept there by name and
// version), downloading it first with apt-get from the machine's
// configured mirror when it is not there yet. Either way its sha256 must be
// the pin's.
func (p BasePackage) Fetch(cache string) (string, error) {
	path := filepath.Join(cache, p.Name+"_"+p.Version+".deb")
	if _, err := os.Stat(path); err == nil {
		return path, p.check(path)
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", fmt.Errorf("ociimage: fetch %s: %w", p.Name, err)
	}
	tmp, err := os.MkdirTemp(cache, "fetch-")
	if err != nil {
		return "", fmt.Errorf("ociimage: fetch %s: %w", p.Name, err)
	}
	defer os.RemoveAll(tmp)
	// apt's unprivileged downloader must be able to write there.
	_ = os.Chmod(tmp, 0o777)
	cmd := exec.Command("apt-get", "download", "-q", p.Name+"="+p.Version)
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("ociimage: apt-get download %s=%s: %w: %s", p.Name, p.Version, err, out)
	}
	got, err := filepath.Glob(filepath.Join(tmp, "*.deb"))
	if err != nil || len(got) != 1 {
		return "", fmt.Errorf("ociimage: apt-get download %s=%s: want one .deb, got %v", p.Name, p.Version, got)
	}
	if err := p.check(got[0]); err != nil {
		return "", err
	}
	if err := os.Rename(got[0], path); err != nil {
		return "", fmt.Errorf("ociimage: fetch %s: %w", p.Name, err)
	}
	return path, nil
}

func (p BasePackage) check(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("ociimage: %s: %w", p.Name, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("ociimage: %s: %w", p.Name, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != p.SHA256 {
		return fmt.Errorf("%w: %s %s (%s) is %s, pinned %s", ErrDebChecksum, p.Name, p.Version, path, got, p.SHA256)
	}
	return nil
}
