package ociimage

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"time"

	cdx "github.com/CycloneDX/cyclonedx-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The SBOM is written by a maintained CycloneDX library (cyclonedx-go),
// not by hand: the document names its JSON schema, reads back with the
// library's decoder, and names the library, at the version linked, among
// the tools that made it.
func TestSBOMIsWrittenByTheCycloneDXLibrary(t *testing.T) {
	worker, cli := binaries(t)
	doc, err := SBOM(SBOMSpec{Binaries: []string{worker, cli}, Name: "checkpoint-finalizer", Version: "v9.8.7",
		Created: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), LibraryVersion: libraryVersion(t)})
	require.NoError(t, err)

	var bom cdx.BOM
	require.NoError(t, cdx.NewBOMDecoder(bytes.NewReader(doc), cdx.BOMFileFormatJSON).Decode(&bom))
	assert.Equal(t, "http://cyclonedx.org/schema/bom-1.5.schema.json", bom.JSONSchema)
	assert.Equal(t, cdx.SpecVersion1_5, bom.SpecVersion)
	require.NotNil(t, bom.Metadata)
	require.NotNil(t, bom.Metadata.Tools)
	require.NotNil(t, bom.Metadata.Tools.Components)
	tools := map[string]string{}
	for _, c := range *bom.Metadata.Tools.Components {
		tools[c.Name] = c.Version
	}
	assert.Equal(t, libraryVersion(t), tools["cyclonedx-go"], "the library that wrote it, at the version linked")
	assert.Contains(t, tools, "finalizer-image")
}

// libraryVersion is cyclonedx-go's version in this module's go.mod, the
// one the release's program links (a test binary records no dependencies).
func libraryVersion(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", cdxModule).Output()
	require.NoError(t, err)
	v := strings.TrimSpace(string(out))
	require.NotEmpty(t, v)
	return v
}
