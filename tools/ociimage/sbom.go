package ociimage

import (
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
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
}

// CycloneDX 1.5 JSON, the parts the SBOM uses.
type (
	cdxBOM struct {
		BOMFormat    string          `json:"bomFormat"`
		SpecVersion  string          `json:"specVersion"`
		SerialNumber string          `json:"serialNumber,omitempty"`
		Version      int             `json:"version"`
		Metadata     cdxMetadata     `json:"metadata"`
		Components   []cdxComponent  `json:"components"`
		Dependencies []cdxDependency `json:"dependencies"`
	}
	cdxMetadata struct {
		Timestamp string       `json:"timestamp"`
		Tools     cdxTools     `json:"tools"`
		Component cdxComponent `json:"component"`
	}
	cdxTools struct {
		Components []cdxComponent `json:"components"`
	}
	cdxComponent struct {
		BOMRef     string        `json:"bom-ref,omitempty"`
		Type       string        `json:"type"`
		Name       string        `json:"name"`
		Version    string        `json:"version,omitempty"`
		PURL       string        `json:"purl,omitempty"`
		Properties []cdxProperty `json:"properties,omitempty"`
	}
	cdxProperty struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	cdxDependency struct {
		Ref       string   `json:"ref"`
		DependsOn []string `json:"dependsOn"`
	}
)

// SBOM returns a CycloneDX 1.5 JSON document of the binaries' module graph
// as the go command recorded it in each (what `go version -m` prints): a
// component per binary and platform, one per module it links (the
// replacement, where go.mod replaces one) and one for the Go standard
// library, and each binary's dependencies on them. Read from the binaries
// themselves, so it lists what shipped, not what a go.mod allows.
func SBOM(s SBOMSpec) ([]byte, error) {
	if len(s.Binaries) == 0 {
		return nil, fmt.Errorf("ociimage: sbom: no binary")
	}
	bom := cdxBOM{
		BOMFormat: "CycloneDX", SpecVersion: "1.5", Version: 1,
		Metadata: cdxMetadata{
			Timestamp: s.Created.UTC().Format(time.RFC3339),
			Tools:     cdxTools{Components: []cdxComponent{{Type: "application", Name: "finalizer-image"}}},
			Component: cdxComponent{BOMRef: "release", Type: "application", Name: s.Name, Version: s.Version},
		},
		Dependencies: []cdxDependency{},
	}
	modules := map[string]cdxComponent{}
	var release []string
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
		bom.Components = append(bom.Components, cdxComponent{
			BOMRef: ref, Type: "application", Name: name, Version: s.Version,
			PURL: purl(bi.Main.Path, s.Version),
			Properties: []cdxProperty{
				{Name: "golang:main", Value: bi.Main.Path},
				{Name: "golang:platform", Value: platform},
				{Name: "golang:version", Value: bi.GoVersion},
			},
		})
		std := "pkg:golang/stdlib@" + bi.GoVersion
		modules[std] = cdxComponent{BOMRef: std, Type: "library", Name: "stdlib", Version: bi.GoVersion, PURL: std}
		deps := []string{std}
		for _, m := range bi.Deps {
			c := cdxComponent{Type: "library", Name: m.Path, Version: m.Version}
			sum := m.Sum
			if r := m.Replace; r != nil {
				c.Name, c.Version, sum = r.Path, r.Version, r.Sum
				c.Properties = append(c.Properties, cdxProperty{Name: "golang:replaces", Value: m.Path + "@" + m.Version})
			}
			if sum != "" {
				c.Properties = append(c.Properties, cdxProperty{Name: "golang:sum", Value: sum})
			}
			c.PURL = purl(c.Name, c.Version)
			c.BOMRef = c.PURL
			modules[c.BOMRef] = c
			deps = append(deps, c.BOMRef)
		}
		sort.Strings(deps)
		bom.Dependencies = append(bom.Dependencies, cdxDependency{Ref: ref, DependsOn: slices.Compact(deps)})
	}
	refs := make([]string, 0, len(modules))
	for r := range modules {
		refs = append(refs, r)
	}
	sort.Strings(refs)
	for _, r := range refs {
		bom.Components = append(bom.Components, modules[r])
	}
	bom.Dependencies = append(bom.Dependencies, cdxDependency{Ref: "release", DependsOn: release})
	// A serial number of the content, so that the same binaries give the
	// same document.
	body, err := json.Marshal(bom)
	if err != nil {
		return nil, err
	}
	bom.SerialNumber = "urn:uuid:" + uuidOf(body)
	out, err := json.MarshalIndent(bom, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
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
