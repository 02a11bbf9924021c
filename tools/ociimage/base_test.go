package ociimage

import (
	"archive/tar"
	"crypto/x509"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// debCache is where the tests keep the pinned packages, as the release
// does: $FINALIZER_CACHE/debian, by default under ~/.cache.
func debCache(t *testing.T) string {
	t.Helper()
	root := os.Getenv("FINALIZER_CACHE")
	if root == "" {
		home, err := os.UserHomeDir()
		require.NoError(t, err)
		root = filepath.Join(home, ".cache", "checkpoint-finalizer")
	}
	return filepath.Join(root, "debian")
}

// pinnedDebs fetches (once per machine) the packages base-packages.txt pins.
func pinnedDebs(t *testing.T) ([]BasePackage, []string) {
	t.Helper()
	pins, err := ReadPins("base-packages.txt")
	require.NoError(t, err)
	require.NotEmpty(t, pins)
	var debs []string
	for _, p := range pins {
		deb, err := p.Fetch(debCache(t))
		require.NoError(t, err)
		debs = append(debs, deb)
	}
	return pins, debs
}

// layerFiles reads every entry of the image's one layer.
func layerFiles(t *testing.T, s Spec) (map[string]*tar.Header, map[string][]byte) {
	t.Helper()
	img := buildArchive(t, s)
	headers, bodies := map[string]*tar.Header{}, map[string][]byte{}
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return headers, bodies
		}
		require.NoError(t, err)
		name := strings.TrimSuffix(h.Name, "/")
		headers[name] = h
		if h.Typeflag == tar.TypeReg {
			bodies[name], err = io.ReadAll(tr)
			require.NoError(t, err)
		}
	}
}

// The image's base comes from the pinned Debian packages: the CA bundle is
// ca-certificates' (not the build machine's), the zone files tzdata's, and
// each package is recorded, name and version, where image scanners look
// (/var/lib/dpkg/status.d/, as distroless records its packages), with its
// copyright.
func TestImageBaseFromPinnedDebianPackages(t *testing.T) {
	pins, debs := pinnedDebs(t)
	s := spec(t)
	s.Debs = debs
	s.CACerts = filepath.Join(t.TempDir(), "absent.crt") // must not be read
	headers, bodies := layerFiles(t, s)

	bundle := bodies["etc/ssl/certs/ca-certificates.crt"]
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(bundle), "a PEM bundle")
	assert.Greater(t, strings.Count(string(bundle), "-----BEGIN CERTIFICATE-----"), 100, "Mozilla's roots")

	for _, zone := range []string{"Etc/UTC", "Europe/Berlin", "America/Sao_Paulo"} {
		_, err := time.LoadLocationFromTZData(zone, bodies["usr/share/zoneinfo/"+zone])
		require.NoError(t, err, "tzdata's %s", zone)
	}
	utc, ok := headers["usr/share/zoneinfo/UTC"]
	require.True(t, ok, "tzdata's links too")
	assert.Equal(t, [2]any{byte(tar.TypeSymlink), "Etc/UTC"}, [2]any{utc.Typeflag, utc.Linkname})

	for _, p := range pins {
		status := string(bodies["var/lib/dpkg/status.d/"+p.Name])
		assert.Contains(t, status, "Package: "+p.Name+"\n")
		assert.Contains(t, status, "Version: "+p.Version+"\n")
		assert.Contains(t, status, "Architecture: all\n")
		assert.NotEmpty(t, bodies["usr/share/doc/"+p.Name+"/copyright"], "%s's copyright", p.Name)
	}
}

// A package whose bytes are not the pinned ones is refused, cached or not.
func TestFetchRefusesAnotherPackage(t *testing.T) {
	pins, debs := pinnedDebs(t)
	cache := t.TempDir()
	wrong := pins[0]
	wrong.SHA256 = strings.Repeat("0", 64)
	b, err := os.ReadFile(debs[0])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(cache, wrong.Name+"_"+wrong.Version+".deb"), b, 0o644))
	_, err = wrong.Fetch(cache)
	assert.True(t, errors.Is(err, ErrDebChecksum), "%v", err)
}
