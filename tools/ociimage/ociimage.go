// Package ociimage builds the finalizer's container image without a
// container engine: the static worker and CLI binaries, a CA bundle and
// time zones from pinned Debian packages (recorded where scanners read
// them) and a non-root user in one layer on an empty base (what distroless/static
// holds, minus what a static Go binary never reads), one per platform
// under an OCI image index, written as an OCI image layout in a tar file
// (an "oci-archive": `skopeo copy --all oci-archive:...` and `crane push
// --index` take it); and a CycloneDX SBOM of the binaries' modules.
//
// The Dockerfile builds the same image with an engine; the package's test
// checks that both set the same user, entrypoint and environment.
//
// It is a module of its own so that go-containerregistry stays out of the
// finalizer module's go.mod; scripts/release.sh runs cmd/finalizer-image.
package ociimage

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's layout and user: distroless's "nonroot", which the
// Kubernetes manifests and the chart run as (runAsUser 65532).
const (
	UID        = 65532
	WorkerPath = "/usr/local/bin/finalizer-worker"
	CLIPath    = "/usr/local/bin/finalizer"
	StateDir   = "/var/lib/finalizer"
	CACertPath = "/etc/ssl/certs/ca-certificates.crt"
	MetricsTCP = "9464/tcp"
)

// Spec is what goes into one image.
type Spec struct {
	// Worker and CLI are the paths of the static binaries (CGO_ENABLED=0).
	Worker, CLI string
	// Debs are the base's Debian packages (.deb files, pinned in
	// base-packages.txt): the CA bundle is built from ca-certificates, the
	// zone files come from tzdata, and each is recorded under StatusDir.
	Debs []string
	// CACerts is a PEM bundle for TLS towards Temporal Cloud and object
	// stores, for an image without ca-certificates among Debs; default the
	// build machine's /etc/ssl/certs/ca-certificates.crt.
	CACerts string
	// Version and Revision become the org.opencontainers.image.version
	// and .revision labels; Source the .source label.
	Version, Revision, Source string
	// Created is every timestamp in the image: a fixed one (the commit's
	// time, SOURCE_DATE_EPOCH) makes the same inputs give the same digest.
	Created time.Time
	// OS and Architecture the binaries were built for (GOOS, GOARCH).
	OS, Architecture string
}

// Env is the image's environment, as the Dockerfile's ENV: listen for
// scrapes on every interface, keep local state under the volume.
var Env = []string{
	"PATH=/usr/local/bin:/usr/bin:/bin",
	"SSL_CERT_FILE=" + CACertPath,
	"FINALIZER_METRICS_ADDRESS=0.0.0.0:9464",
	"FINALIZER_EMBEDDED_PATH=" + StateDir + "/references.db",
	"FINALIZER_STATE_BUCKET=file://" + StateDir + "/state",
}

// Build assembles the image.
func Build(s Spec) (v1.Image, error) {
	if s.Version == "" || s.Revision == "" {
		return nil, fmt.Errorf("ociimage: version and revision are required (labels org.opencontainers.image.version, .revision)")
	}
	if s.CACerts == "" {
		s.CACerts = CACertPath
	}
	if s.OS == "" || s.Architecture == "" {
		return nil, fmt.Errorf("ociimage: the binaries' OS and architecture are required")
	}
	files, err := s.files()
	if err != nil {
		return nil, err
	}
	layerTar, err := tarFiles(files, s.Created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("ociimage: layer: %w", err)
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, MediaType: types.OCILayer,
		History: v1.History{Created: v1.Time{Time: s.Created}, CreatedBy: "finalizer-image: static binaries, CA bundle and zone files (Debian packages), user 65532"}})
	if err != nil {
		return nil, fmt.Errorf("ociimage: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = s.OS, s.Architecture
	cf.Created = v1.Time{Time: s.Created}
	cf.Config = s.config()
	return mutate.ConfigFile(img, cf)
}

func (s Spec) config() v1.Config {
	return v1.Config{
		User:         fmt.Sprintf("%d:%d", UID, UID),
		Entrypoint:   []string{WorkerPath},
		Env:          Env,
		WorkingDir:   "/",
		ExposedPorts: map[string]struct{}{MetricsTCP: {}},
		Volumes:      map[string]struct{}{StateDir: {}},
		// Docker and Podman run it; Kubernetes ignores it (its probes are
		// the manifests').
		Healthcheck: &v1.HealthConfig{Test: []string{"CMD", WorkerPath, "healthcheck"},
			Interval: 10 * time.Second, Timeout: 5 * time.Second, StartPeriod: 30 * time.Second, Retries: 3},
		Labels: map[string]string{
			"org.opencontainers.image.title":       "checkpoint-finalizer worker",
			"org.opencontainers.image.description": "Durable checkpoint finalizer: the Temporal worker and the finalizer CLI",
			"org.opencontainers.image.version":     s.Version,
			"org.opencontainers.image.revision":    s.Revision,
			"org.opencontainers.image.source":      s.Source,
			"org.opencontainers.image.licenses":    "Apache-2.0",
			"org.opencontainers.image.created":     s.Created.UTC().Format(time.RFC3339),
		},
	}
}

// file is one entry of the layer.
type file struct {
	name string // without the leading slash
	mode int64
	uid  int
	dir  bool
	// link is a symbolic link's target.
	link string
	body []byte
}

func (s Spec) files() ([]file, error) {
	read := func(p string) ([]byte, error) {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("ociimage: %w", err)
		}
		return b, nil
	}
	worker, err := read(s.Worker)
	if err != nil {
		return nil, err
	}
	cli, err := read(s.CLI)
	if err != nil {
		return nil, err
	}
	b, err := readBase(s.Debs)
	if err != nil {
		return nil, err
	}
	ca := b.caBundle
	if ca == nil {
		if ca, err = read(s.CACerts); err != nil {
			return nil, err
		}
	}
	out := append(b.files, []file{
		// Names for the user and group ids (ps, id, a shell-less exec).
		{name: "etc/passwd", mode: 0o644, body: []byte("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")},
		{name: "etc/group", mode: 0o644, body: []byte("root:x:0:\nnonroot:x:65532:\n")},
		{name: strings.TrimPrefix(CACertPath, "/"), mode: 0o644, body: ca},
		{name: strings.TrimPrefix(WorkerPath, "/"), mode: 0o755, body: worker},
		{name: strings.TrimPrefix(CLIPath, "/"), mode: 0o755, body: cli},
		{name: "home/nonroot", mode: 0o700, uid: UID, dir: true},
		// The volume's mount point and the default file bucket, owned by
		// the user, so a named volume mounted there starts with that owner.
		{name: strings.TrimPrefix(StateDir, "/"), mode: 0o755, uid: UID, dir: true},
		{name: strings.TrimPrefix(StateDir, "/") + "/state", mode: 0o755, uid: UID, dir: true},
		{name: "tmp", mode: 0o1777, dir: true},
	}...)
	return withParents(out), nil
}

// withParents adds every missing parent directory (root's, 0755) and sorts
// the entries, so the tar is the same for the same inputs.
func withParents(files []file) []file {
	have := map[string]bool{}
	for _, f := range files {
		have[f.name] = true
	}
	for _, f := range files {
		for d := path.Dir(f.name); d != "." && !have[d]; d = path.Dir(d) {
			have[d] = true
			files = append(files, file{name: d, mode: 0o755, dir: true})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	return files
}

func tarFiles(files []file, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: f.mode, Uid: f.uid, Gid: f.uid, ModTime: mtime, Format: tar.FormatPAX}
		switch {
		case f.dir:
			h.Typeflag, h.Name = tar.TypeDir, f.name+"/"
		case f.link != "":
			h.Typeflag, h.Linkname = tar.TypeSymlink, f.link
		default:
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
