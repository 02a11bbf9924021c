package ociimage

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One archive holds the multi-architecture image: its one entry, tagged,
// is an OCI image index naming each platform's image, whose configuration
// says the same platform. (Both images here carry the host's binaries: the
// index's structure is what is tested, not a cross build.)
func TestIndexArchive(t *testing.T) {
	amd, arm := spec(t), spec(t)
	amd.OS, amd.Architecture = "linux", "amd64"
	arm.OS, arm.Architecture = "linux", "arm64"
	idx, err := BuildIndex([]Spec{amd, arm})
	require.NoError(t, err)
	archive := filepath.Join(t.TempDir(), "image.oci.tar")
	require.NoError(t, WriteIndexArchive(idx, "9.8.7", archive, amd.Created))

	back, tag, err := ReadIndexArchive(archive, t.TempDir())
	require.NoError(t, err)
	assert.Equal(t, "9.8.7", tag, "the index is the tagged entry")
	want, err := idx.Digest()
	require.NoError(t, err)
	got, err := back.Digest()
	require.NoError(t, err)
	assert.Equal(t, want, got)
	m, err := back.IndexManifest()
	require.NoError(t, err)
	assert.Equal(t, types.OCIImageIndex, m.MediaType)
	require.Len(t, m.Manifests, 2)
	for i, arch := range []string{"amd64", "arm64"} {
		d := m.Manifests[i]
		assert.Equal(t, types.OCIManifestSchema1, d.MediaType)
		require.NotNil(t, d.Platform)
		assert.Equal(t, "linux/"+arch, d.Platform.OS+"/"+d.Platform.Architecture)
		img, err := back.Image(d.Digest)
		require.NoError(t, err)
		cf, err := img.ConfigFile()
		require.NoError(t, err)
		assert.Equal(t, "linux/"+arch, cf.OS+"/"+cf.Architecture, "the image's configuration names its platform")
		assert.Equal(t, "65532:65532", cf.Config.User)
	}

	// The same inputs, the same bytes; one platform twice is refused.
	again := filepath.Join(t.TempDir(), "again.oci.tar")
	require.NoError(t, WriteIndexArchive(idx, "9.8.7", again, amd.Created))
	assert.Equal(t, sha256File(t, archive), sha256File(t, again))
	_, err = BuildIndex([]Spec{amd, amd})
	assert.ErrorContains(t, err, "platform linux/amd64 given twice")
	_, _, err = ReadArchive(archive, t.TempDir())
	assert.ErrorContains(t, err, "not one image", "an index is not one image")
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return fmt.Sprintf("%x", sha256.Sum256(b))
}
