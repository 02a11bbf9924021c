package ociimage

import (
	"bytes"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"time"

	cdx "github.com/CycloneDX/cyclonedx-go"
)

// SBOMSpec is what the software bill of materials describes: the release's
// binaries, every platform's.
type SBOMSpec struct {
	// Binaries are the paths of the release's Go binaries.
	Binaries []string
	// Name and Version name the release (the SBOM's subject).
	Name, Version string
	// Created is the document's timestamp (SOURCE_DATE_EPOCH): the same
	// binaries give the same bytes.
	Created time.Time
	// LibraryVersion is the version of the CycloneDX library (cdxModule)
	// that writes it, named among the document's tools: LinkedLibrary for
	// a program's own.
	LibraryVersion string
}

// cdxModule is the CycloneDX library that writes the document; the SBOM
// names it, at the version linked, among its tools.
const cdxModule = "github.com/CycloneDX/cyclonedx-go"

// SBOM returns a CycloneDX 1.5 JSON document of the binaries' module graph
// as the go command recorded it in each (what `go version -m` prints): a
// component per binary and platform, one per module it links (the
// replacement, where go.mod replaces one) and one for the Go standard
// library, and each binary's dependencies on them. Read from the binaries
// themselves, so it lists what shipped, not what a go.mod allows. The
// CycloneDX library (cdxModule) models and encodes it.
func SBOM(s SBOMSpec) ([]byte, error) {
	if len(s.Binaries) == 0 {
		return nil, fmt.Errorf("ociimage: sbom: no binary")
	}
	modules := map[string]cdx.Component{}
	var (
		release    []string
		components []cdx.Component
		deps       []cdx.Dependency
	)
	for _, path := range s.Binaries {
		bi, err := buildinfo.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("ociimage: sbom: %s: %w", path, err)
		}
		settings := map[string]string{}
		for _, kv := range bi.Settings {
			settings[kv.Key] = kv.Value
		}
		platform := settings["GOOS"] + "/" + settings["GOARCH"]
		name := filepath.Base(path)
		ref := "binary:" + name + "@" + platform
		if slices.Contains(release, ref) {
			return nil, fmt.Errorf("ociimage: sbom: %s for %s given twice", name, platform)
		}
		release = append(release, ref)
		components = append(components, cdx.Component{
			BOMRef: ref, Type: cdx.ComponentTypeApplication, Name: name, Version: s.Version,
			PackageURL: purl(bi.Main.Path, s.Version),
			Properties: &[]cdx.Property{
				{Name: "golang:main", Value: bi.Main.Path},
				{Name: "golang:platform", Value: platform},
				{Name: "golang:version", Value: bi.GoVersion},
			},
		})
		std := "pkg:golang/stdlib@" + bi.GoVersion
		modules[std] = cdx.Component{BOMRef: std, Type: cdx.ComponentTypeLibrary, Name: "stdlib", Version: bi.GoVersion, PackageURL: std}
		on := []string{std}
		for _, m := range bi.Deps {
			c := moduleComponent(m)
			modules[c.BOMRef] = c
			on = append(on, c.BOMRef)
		}
		sort.Strings(on)
		on = slices.Compact(on)
		deps = append(deps, cdx.Dependency{Ref: ref, Dependencies: &on})
	}
	refs := make([]string, 0, len(modules))
	for r := range modules {
		refs = append(refs, r)
	}
	sort.Strings(refs)
	for _, r := range refs {
		components = append(components, modules[r])
	}
	deps = append(deps, cdx.Dependency{Ref: "release", Dependencies: &release})

	bom := cdx.NewBOM()
	bom.Metadata = &cdx.Metadata{
		Timestamp: s.Created.UTC().Format(time.RFC3339),
		Tools: &cdx.ToolsChoice{Components: &[]cdx.Component{{Type: cdx.ComponentTypeApplication, Name: "finalizer-image"}, {
			Type: cdx.ComponentTypeLibrary, Name: "cyclonedx-go", Version: s.LibraryVersion, PackageURL: purl(cdxModule, s.LibraryVersion),
		}}},
		Component: &cdx.Component{BOMRef: "release", Type: cdx.ComponentTypeApplication, Name: s.Name, Version: s.Version},
	}
	bom.Components, bom.Dependencies = &components, &deps
	// A serial number of the content, so that the same binaries give the
	// same document.
	body, err := encode(bom)
	if err != nil {
		return nil, err
	}
	bom.SerialNumber = "urn:uuid:" + uuidOf(body)
	return encode(bom)
}

// moduleComponent is the component of a module a binary links: the
// replacement where go.mod replaces it, with its checksum.
func moduleComponent(m *debug.Module) cdx.Component {
	c := cdx.Component{Type: cdx.ComponentTypeLibrary, Name: m.Path, Version: m.Version}
	var props []cdx.Property
	sum := m.Sum
	if r := m.Replace; r != nil {
		c.Name, c.Version, sum = r.Path, r.Version, r.Sum
		props = append(props, cdx.Property{Name: "golang:replaces", Value: m.Path + "@" + m.Version})
	}
	if sum != "" {
		props = append(props, cdx.Property{Name: "golang:sum", Value: sum})
	}
	if len(props) > 0 {
		c.Properties = &props
	}
	c.PackageURL = purl(c.Name, c.Version)
	c.BOMRef = c.PackageURL
	return c
}

// LinkedLibrary is the version of the CycloneDX library this program
// links, as its build info records it ("" where the build recorded no
// dependencies, as in a test binary).
func LinkedLibrary() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == cdxModule {
				return m.Version
			}
		}
	}
	return ""
}

// encode writes bom as CycloneDX 1.5 JSON, indented, ending in a newline.
func encode(bom *cdx.BOM) ([]byte, error) {
	var b bytes.Buffer
	if err := cdx.NewBOMEncoder(&b, cdx.BOMFileFormatJSON).SetPretty(true).EncodeVersion(bom, cdx.SpecVersion1_5); err != nil {
		return nil, fmt.Errorf("ociimage: sbom: %w", err)
	}
	return b.Bytes(), nil
}

// purl is a Go module's package URL; a version the go command could not
// name ("(devel)", a local replacement's) is left out.
func purl(path, version string) string {
	p := "pkg:golang/" + path
	if version != "" && !strings.HasPrefix(version, "(") {
		p += "@" + version
	}
	return p
}

// uuidOf is a name-based UUID (version 5's layout, SHA-256 rather than
// SHA-1) of b.
func uuidOf(b []byte) string {
	h := sha256.Sum256(b)
	u := h[:16]
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	x := hex.EncodeToString(u)
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}
