package releasetest

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/debian"
)

const tag, version = "v0.0.0-releasetest", "0.0.0-releasetest"

// TestRelease builds a release twice from a clone of the tree (HEAD and
// the tracked files' changes, so that its Maven build never meets the Flink
// tests' in this tree) into absolute DIST folders, and checks what the
// script promises.
func TestRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a whole release (about a minute): not in the quick tier")
	}
	// The release builds the Flink plugin: Maven from Debian if missing,
	// as the Flink tests install it.
	require.NoError(t, debian.Ensure(debian.Command("mvn"), "maven"))
	clone, dirty := cloneTree(t)

	first, second := filepath.Join(t.TempDir(), "dist"), filepath.Join(t.TempDir(), "dist")
	for _, dist := range []string{first, second} {
		run(t, clone, []string{"PLATFORMS=linux/amd64", "DIST=" + dist, dirty}, "bash", "scripts/release.sh", tag)
	}
	out := filepath.Join(first, tag)
	want := []string{
		"SHA256SUMS",
		"finalizer-" + tag + "-linux-amd64.tar.gz",
		"finalizer-worker-image-" + tag + ".oci.tar",
		"finalizer-" + tag + ".cdx.json",
		"finalizer-" + version + ".tgz",
		"finalizer-flink-" + version + ".jar",
	}
	entries, err := os.ReadDir(out)
	require.NoError(t, err, "the release lies in DIST/<tag>")
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	assert.ElementsMatch(t, want, got, "every artifact, named after the release")

	sums := checksums(t, filepath.Join(out, "SHA256SUMS"))
	assert.Len(t, sums, len(want)-1, "a checksum for each artifact")
	for name, sum := range sums {
		assert.Equal(t, sum, sha256Of(t, filepath.Join(out, name)), name)
	}
	again := checksums(t, filepath.Join(second, tag, "SHA256SUMS"))
	assert.Equal(t, sums, again, "the same commit builds the same bytes")

	bin := extract(t, filepath.Join(out, "finalizer-"+tag+"-linux-amd64.tar.gz"), "finalizer-worker")
	v, err := exec.Command(bin, "--version").CombinedOutput()
	require.NoError(t, err, "%s", v)
	assert.Contains(t, string(v), tag, "the binary says its release")
	chart := string(readTGZ(t, filepath.Join(out, "finalizer-"+version+".tgz"), "finalizer/Chart.yaml"))
	assert.Contains(t, chart, "version: "+version)
	assert.Contains(t, chart, "appVersion: "+version)
}

// cloneTree clones the repository with the tree's changes since HEAD
// applied, so that the script and the build under test are the tree's; dirty
// is the ALLOW_DIRTY setting a release of the clone needs (a release refuses
// a dirty tree unless told).
func cloneTree(t *testing.T) (clone, dirty string) {
	t.Helper()
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	require.NoError(t, err)
	clone = filepath.Join(t.TempDir(), "repo")
	run(t, "", nil, "git", "clone", "-q", strings.TrimSpace(string(top)), clone)
	dirty = "ALLOW_DIRTY="
	if diff, err := exec.Command("git", "-C", strings.TrimSpace(string(top)), "diff", "HEAD", "--binary").Output(); err == nil && len(diff) > 0 {
		apply := exec.Command("git", "-C", clone, "apply", "--whitespace=nowarn")
		apply.Stdin = strings.NewReader(string(diff))
		out, err := apply.CombinedOutput()
		require.NoError(t, err, "%s", out)
		dirty = "ALLOW_DIRTY=1"
	}
	return clone, dirty
}

// run runs a command in dir with env added to the test's environment, and
// fails the test with its output when it fails.
func run(t *testing.T, dir string, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %v: %s", name, args, out)
}

func checksums(t *testing.T, file string) map[string]string {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	sums := map[string]string{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		sum, name, ok := strings.Cut(s.Text(), "  ")
		require.True(t, ok, "SHA256SUMS line %q", s.Text())
		sums[name] = sum
	}
	require.NoError(t, s.Err())
	return sums
}

func sha256Of(t *testing.T, file string) string {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	h := sha256.New()
	_, err = io.Copy(h, f)
	require.NoError(t, err)
	return hex.EncodeToString(h.Sum(nil))
}

// extract writes name from the tar.gz into the test's folder, executable.
func extract(t *testing.T, archive, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, readTGZ(t, archive, name), 0o755))
	return path
}

// readTGZ returns the file of the tar.gz whose name ends in name.
func readTGZ(t *testing.T, archive, name string) []byte {
	t.Helper()
	f, err := os.Open(archive)
	require.NoError(t, err)
	defer f.Close()
	gz, err := gzip.NewReader(f)
	require.NoError(t, err)
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		require.NoError(t, err, "%s holds no %s", archive, name)
		if h.Name == name || strings.HasSuffix(h.Name, "/"+name) {
			b, err := io.ReadAll(tr)
			require.NoError(t, err)
			return b
		}
	}
}

// A release's binaries name the commit they were built from in --version,
// as the image's revision label does, even where the go command stamps no
// version control information (these machines set -buildvcs=false); its
// image is one archive of an index over both platforms, and its SBOM lists
// every binary. Built from a clone without the Flink plugin, so that no
// Maven build runs.
func TestReleaseBinariesNameTheirCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a release's binaries and image: not in the quick tier")
	}
	clone, _ := cloneTree(t)
	// Committed, tree changes and all, so that the clone is clean.
	run(t, clone, nil, "git", "rm", "-q", "flink/pom.xml")
	run(t, clone, nil, "git", "add", "-A")
	run(t, clone, nil, "git", "-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "no plugin")
	head, err := exec.Command("git", "-C", clone, "rev-parse", "HEAD").Output()
	require.NoError(t, err)

	dist := filepath.Join(t.TempDir(), "dist")
	run(t, clone, []string{"PLATFORMS=linux/amd64 linux/arm64", "DIST=" + dist}, "bash", "scripts/release.sh", tag)
	out := filepath.Join(dist, tag)
	archive := filepath.Join(out, "finalizer-"+tag+"-linux-amd64.tar.gz")
	for name, args := range map[string][]string{"finalizer": {"--version"}, "finalizer-worker": {"version"}} {
		v, err := exec.Command(extract(t, archive, name), args...).CombinedOutput()
		require.NoError(t, err, "%s", v)
		assert.Regexp(t, `^`+name+` `+tag+` \(`+strings.TrimSpace(string(head))+`, go1\.\d+`, strings.TrimSpace(string(v)))
	}

	// One image archive for both platforms: its one entry, tagged, an
	// OCI image index naming each platform.
	image := readTar(t, filepath.Join(out, "finalizer-worker-image-"+tag+".oci.tar"))
	var top ociIndex
	require.NoError(t, json.Unmarshal(image["index.json"], &top))
	require.Len(t, top.Manifests, 1, "one entry: the index")
	assert.Equal(t, "application/vnd.oci.image.index.v1+json", top.Manifests[0].MediaType)
	assert.Equal(t, version, top.Manifests[0].Annotations["org.opencontainers.image.ref.name"])
	var idx ociIndex
	require.NoError(t, json.Unmarshal(image["blobs/"+strings.Replace(top.Manifests[0].Digest, ":", "/", 1)], &idx))
	var platforms []string
	for _, m := range idx.Manifests {
		platforms = append(platforms, m.Platform.OS+"/"+m.Platform.Architecture)
	}
	assert.Equal(t, []string{"linux/amd64", "linux/arm64"}, platforms)
	for _, m := range idx.Manifests {
		checkBase(t, clone, image, m.Digest)
	}

	// The SBOM beside it, in the checksums, naming the release and
	// every binary of both platforms.
	sums := checksums(t, filepath.Join(out, "SHA256SUMS"))
	assert.Contains(t, sums, "finalizer-"+tag+".cdx.json")
	b, err := os.ReadFile(filepath.Join(out, "finalizer-"+tag+".cdx.json"))
	require.NoError(t, err)
	var bom struct {
		BOMFormat string `json:"bomFormat"`
		Metadata  struct {
			Component struct {
				Version string `json:"version"`
			} `json:"component"`
			Tools struct {
				Components []struct {
					Name    string `json:"name"`
					Version string `json:"version"`
				} `json:"components"`
			} `json:"tools"`
		} `json:"metadata"`
		Dependencies []struct {
			Ref string `json:"ref"`
		} `json:"dependencies"`
	}
	require.NoError(t, json.Unmarshal(b, &bom))
	assert.Equal(t, "CycloneDX", bom.BOMFormat)
	assert.Equal(t, tag, bom.Metadata.Component.Version)
	// Written by the CycloneDX library, at the version the release tool's
	// go.mod requires.
	tools := map[string]string{}
	for _, c := range bom.Metadata.Tools.Components {
		tools[c.Name] = c.Version
	}
	lib := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "github.com/CycloneDX/cyclonedx-go")
	lib.Dir = filepath.Join(clone, "tools", "ociimage")
	v, err := lib.Output()
	require.NoError(t, err)
	assert.Equal(t, strings.TrimSpace(string(v)), tools["cyclonedx-go"])
	var refs []string
	for _, d := range bom.Dependencies {
		refs = append(refs, d.Ref)
	}
	for _, p := range []string{"linux/amd64", "linux/arm64"} {
		assert.Contains(t, refs, "binary:finalizer-worker@"+p)
		assert.Contains(t, refs, "binary:finalizer@"+p)
	}
}

// ociIndex is the part of an OCI index (index.json, an image index) the
// test reads.
type ociIndex struct {
	Manifests []struct {
		MediaType   string            `json:"mediaType"`
		Digest      string            `json:"digest"`
		Annotations map[string]string `json:"annotations"`
		Platform    struct {
			OS           string `json:"os"`
			Architecture string `json:"architecture"`
		} `json:"platform"`
	} `json:"manifests"`
}

// readTar is a tar file's regular files by name.
func readTar(t *testing.T, archive string) map[string][]byte {
	t.Helper()
	f, err := os.Open(archive)
	require.NoError(t, err)
	defer f.Close()
	files := map[string][]byte{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		require.NoError(t, err)
		if h.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(tr)
			require.NoError(t, err)
			files[h.Name] = b
		}
	}
}

// checkBase reads the layer of the image manifest digest (in the archive's
// files): its CA bundle and zone files, and a status entry, name and
// version, for each Debian package tools/ociimage/base-packages.txt pins.
func checkBase(t *testing.T, clone string, archive map[string][]byte, digest string) {
	t.Helper()
	var manifest struct {
		Layers []struct {
			Digest string `json:"digest"`
		} `json:"layers"`
	}
	require.NoError(t, json.Unmarshal(archive[blob(digest)], &manifest))
	require.Len(t, manifest.Layers, 1)
	gz, err := gzip.NewReader(bytes.NewReader(archive[blob(manifest.Layers[0].Digest)]))
	require.NoError(t, err)
	layer := map[string]string{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		b, err := io.ReadAll(tr)
		require.NoError(t, err)
		layer[h.Name] = string(b)
	}
	assert.Greater(t, strings.Count(layer["etc/ssl/certs/ca-certificates.crt"], "BEGIN CERTIFICATE"), 100, "%s: the CA bundle", digest)
	assert.True(t, strings.HasPrefix(layer["usr/share/zoneinfo/Europe/Berlin"], "TZif"), "%s: the zone files", digest)
	pins, err := os.ReadFile(filepath.Join(clone, "tools", "ociimage", "base-packages.txt"))
	require.NoError(t, err)
	n := 0
	for _, line := range strings.Split(string(pins), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || strings.HasPrefix(f[0], "#") {
			continue
		}
		n++
		status := layer["var/lib/dpkg/status.d/"+f[0]]
		assert.Contains(t, status, "Package: "+f[0]+"\n", "%s: %s recorded for scanners", digest, f[0])
		assert.Contains(t, status, "Version: "+f[1]+"\n", "%s: %s recorded for scanners", digest, f[0])
	}
	assert.Equal(t, 2, n, "ca-certificates and tzdata are pinned")
}

// blob is the archive's path of a blob.
func blob(digest string) string {
	return "blobs/" + strings.Replace(digest, ":", "/", 1)
}
