package ociimage

import (
	"archive/tar"
	"debug/elf"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// repoRoot is the finalizer module's root, from this package's directory.
const repoRoot = "../.."

// testVersion is what the test's binaries are stamped with, as
// scripts/release.sh stamps a release's.
const testVersion = "v9.8.7-imagetest"

var built struct {
	once        sync.Once
	worker, cli string
	err         error
}

// binaries builds the worker and the CLI as the release does: static
// (CGO_ENABLED=0), stripped, version stamped. Once per test binary.
func binaries(t *testing.T) (worker, cli string) {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "ociimage-bin-")
		if err != nil {
			built.err = err
			return
		}
		for pkg, out := range map[string]*string{"./worker/cmd/finalizer-worker": &built.worker, "./client/cmd/finalizer": &built.cli} {
			*out = filepath.Join(dir, filepath.Base(pkg))
			cmd := exec.Command("go", "build", "-trimpath", "-ldflags",
				"-s -w -X github.com/checkpoint-finalizer/finalizer/internal/version.version="+testVersion, "-o", *out, pkg)
			cmd.Dir = repoRoot
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
			if b, err := cmd.CombinedOutput(); err != nil {
				built.err = errors.New(string(b))
				return
			}
		}
	})
	if built.err != nil {
		t.Fatalf("go build: %v", built.err)
	}
	return built.worker, built.cli
}

func spec(t *testing.T) Spec {
	worker, cli := binaries(t)
	return Spec{Worker: worker, CLI: cli, Version: "9.8.7", Revision: "0123456789abcdef0123456789abcdef01234567",
		Source: "https://example.test/finalizer", Created: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		OS: runtime.GOOS, Architecture: runtime.GOARCH}
}

// buildArchive builds the image, writes it and reads it back.
func buildArchive(t *testing.T, s Spec) v1.Image {
	t.Helper()
	img, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "image.oci.tar")
	if err := WriteArchive(img, "9.8.7", archive, s.Created); err != nil {
		t.Fatal(err)
	}
	back, tag, err := ReadArchive(archive, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if tag != "9.8.7" {
		t.Errorf("the archive names the image %q, want the tag 9.8.7", tag)
	}
	want, _ := img.Digest()
	got, err := back.Digest()
	if err != nil || got != want {
		t.Fatalf("digest read back %v (%v), written %v", got, err, want)
	}
	return back
}

// The image's configuration: non-root numeric user, the worker as
// entrypoint, the Dockerfile's environment, the release's labels, OCI
// media types.
func TestImageConfig(t *testing.T) {
	img := buildArchive(t, spec(t))
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	if c.User != "65532:65532" {
		t.Errorf("User %q, want the numeric non-root 65532:65532 (runAsNonRoot needs a number)", c.User)
	}
	if strings.Join(c.Entrypoint, " ") != WorkerPath {
		t.Errorf("Entrypoint %q", c.Entrypoint)
	}
	for k, want := range map[string]string{
		"org.opencontainers.image.version":  "9.8.7",
		"org.opencontainers.image.revision": "0123456789abcdef0123456789abcdef01234567",
		"org.opencontainers.image.source":   "https://example.test/finalizer",
		"org.opencontainers.image.created":  "2026-12-01T00:00:00Z",
	} {
		if c.Labels[k] != want {
			t.Errorf("label %s = %q, want %q", k, c.Labels[k], want)
		}
	}
	if _, ok := c.ExposedPorts[MetricsTCP]; !ok {
		t.Errorf("ExposedPorts %v lacks %s", c.ExposedPorts, MetricsTCP)
	}
	if cf.OS != runtime.GOOS || cf.Architecture != runtime.GOARCH || !cf.Created.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("platform %s/%s created %v", cf.OS, cf.Architecture, cf.Created)
	}
	mt, _ := img.MediaType()
	m, err := img.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if mt != types.OCIManifestSchema1 || m.Config.MediaType != types.OCIConfigJSON || len(m.Layers) != 1 || m.Layers[0].MediaType != types.OCILayer {
		t.Errorf("media types: manifest %s config %s layers %v", mt, m.Config.MediaType, m.Layers)
	}
	checkDockerfile(t, c)
}

// checkDockerfile: the engine-built image (Dockerfile) and this one agree
// on user, entrypoint and the FINALIZER_* environment.
func checkDockerfile(t *testing.T, c v1.Config) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	stages := regexp.MustCompile(`(?m)^FROM\s`).Split(string(b), -1)
	final := strings.ReplaceAll(stages[len(stages)-1], "\\\n", " ")
	if m := regexp.MustCompile(`(?m)^USER\s+(\S+)`).FindStringSubmatch(final); m == nil || m[1] != c.User {
		t.Errorf("Dockerfile USER %v, image %q", m, c.User)
	}
	if m := regexp.MustCompile(`(?m)^ENTRYPOINT\s+\["([^"]+)"\]`).FindStringSubmatch(final); m == nil || m[1] != c.Entrypoint[0] {
		t.Errorf("Dockerfile ENTRYPOINT %v, image %q", m, c.Entrypoint)
	}
	env := regexp.MustCompile(`(?m)^ENV\s+(.*)$`).FindStringSubmatch(final)
	if env == nil {
		t.Fatal("no ENV in the Dockerfile's runtime stage")
	}
	for _, kv := range strings.Fields(env[1]) {
		found := false
		for _, e := range c.Env {
			found = found || e == kv
		}
		if !found {
			t.Errorf("Dockerfile ENV %s is not in the image's %v", kv, c.Env)
		}
	}
}

// The layer's files: root-owned executables, the user's state directory,
// nothing writable by others but /tmp, and binaries that are static (no
// ELF interpreter: nothing else in the image could run them).
func TestImageFiles(t *testing.T) {
	img := buildArchive(t, spec(t))
	headers := map[string]*tar.Header{}
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	dir := t.TempDir()
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		headers[strings.TrimSuffix(h.Name, "/")] = h
		if h.Typeflag == tar.TypeReg && strings.HasPrefix(h.Name, "usr/local/bin/") {
			b, _ := io.ReadAll(tr)
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(h.Name)), b, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, want := range map[string]struct {
		mode int64
		uid  int
	}{
		"usr/local/bin/finalizer-worker": {0o755, 0}, "usr/local/bin/finalizer": {0o755, 0},
		"etc/ssl/certs/ca-certificates.crt": {0o644, 0}, "etc/passwd": {0o644, 0},
		"var/lib/finalizer": {0o755, UID}, "var/lib/finalizer/state": {0o755, UID}, "tmp": {0o1777, 0},
	} {
		h, ok := headers[name]
		if !ok {
			t.Errorf("%s missing", name)
			continue
		}
		if h.Mode != want.mode || h.Uid != want.uid || h.Gid != want.uid {
			t.Errorf("%s: mode %o uid %d gid %d, want %o %d", name, h.Mode, h.Uid, h.Gid, want.mode, want.uid)
		}
	}
	for name, h := range headers {
		if h.Mode&0o002 != 0 && name != "tmp" && h.Typeflag != tar.TypeSymlink || h.Mode&0o6000 != 0 {
			t.Errorf("%s: mode %o (world-writable or setuid)", name, h.Mode)
		}
	}
	for _, bin := range []string{"finalizer-worker", "finalizer"} {
		f, err := elf.Open(filepath.Join(dir, bin))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("%s is dynamically linked", bin)
			}
		}
		f.Close()
	}
	runExtracted(t, dir)
}

// runExtracted runs the binaries taken out of the image: they answer
// --version with the release's version, and the worker's healthcheck asks
// a worker's /healthz (a stand-in HTTP server here) and reports its answer
// by its exit code, as the image's HEALTHCHECK uses it.
func runExtracted(t *testing.T, dir string) {
	t.Helper()
	for _, bin := range []string{"finalizer-worker", "finalizer"} {
		out, err := exec.Command(filepath.Join(dir, bin), "--version").CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), bin+" "+testVersion+" ") {
			t.Errorf("%s --version: %q (%v), want %s %s ...", bin, out, err, bin, testVersion)
		}
	}
	for status, wantOK := range map[int]bool{http.StatusOK: true, http.StatusServiceUnavailable: false} {
		var asked string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked = r.URL.Path
			w.WriteHeader(status)
		}))
		cmd := exec.Command(filepath.Join(dir, "finalizer-worker"), "healthcheck")
		cmd.Env = append(os.Environ(), "FINALIZER_METRICS_ADDRESS="+strings.TrimPrefix(srv.URL, "http://"))
		out, err := cmd.CombinedOutput()
		srv.Close()
		if (err == nil) != wantOK || asked != "/healthz" {
			t.Errorf("healthcheck against /healthz answering %d: err %v, asked %q, output %q", status, err, asked, out)
		}
	}
}

// The same inputs give the same image, byte for byte: a rebuild of a
// release can be checked against the published digest.
func TestImageIsReproducible(t *testing.T) {
	a, err := Build(spec(t))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Build(spec(t))
	if err != nil {
		t.Fatal(err)
	}
	da, _ := a.Digest()
	db, _ := b.Digest()
	if da != db {
		t.Errorf("two builds: %s and %s", da, db)
	}
	s := spec(t)
	s.Revision = "ffffffffffffffffffffffffffffffffffffffff"
	c, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	if dc, _ := c.Digest(); dc == da {
		t.Error("another revision, the same digest")
	}
}

// Build refuses an image that would not say what it is.
func TestBuildRefusesUnlabelled(t *testing.T) {
	s := spec(t)
	s.Version = ""
	if _, err := Build(s); err == nil || !strings.Contains(err.Error(), "org.opencontainers.image.version") {
		t.Errorf("no version: %v", err)
	}
}
