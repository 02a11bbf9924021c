package ociimage

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The SBOM lists what `go version -m` reads from each binary: every module
// at the version linked (the replacement where there is one), the
// standard library, and each binary's dependencies on them; the same
// binaries give the same bytes.
func TestSBOMListsTheBinariesModules(t *testing.T) {
	worker, cli := binaries(t)
	s := SBOMSpec{Binaries: []string{worker, cli}, Name: "checkpoint-finalizer", Version: "v9.8.7",
		Created: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	doc, err := SBOM(s)
	require.NoError(t, err)
	again, err := SBOM(s)
	require.NoError(t, err)
	assert.Equal(t, string(doc), string(again), "reproducible")

	var bom struct {
		BOMFormat    string `json:"bomFormat"`
		SpecVersion  string `json:"specVersion"`
		SerialNumber string `json:"serialNumber"`
		Metadata     struct {
			Timestamp string `json:"timestamp"`
			Component struct {
				Name, Version string
			} `json:"component"`
		} `json:"metadata"`
		Components []struct {
			BOMRef  string `json:"bom-ref"`
			Type    string `json:"type"`
			Name    string `json:"name"`
			Version string `json:"version"`
			PURL    string `json:"purl"`
		} `json:"components"`
		Dependencies []struct {
			Ref       string   `json:"ref"`
			DependsOn []string `json:"dependsOn"`
		} `json:"dependencies"`
	}
	require.NoError(t, json.Unmarshal(doc, &bom))
	assert.Equal(t, "CycloneDX", bom.BOMFormat)
	assert.Equal(t, "1.5", bom.SpecVersion)
	assert.Regexp(t, `^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, bom.SerialNumber)
	assert.Equal(t, "2026-12-01T00:00:00Z", bom.Metadata.Timestamp)
	assert.Equal(t, "v9.8.7", bom.Metadata.Component.Version)

	byRef := map[string]string{}
	for _, c := range bom.Components {
		byRef[c.BOMRef] = c.Type + " " + c.Name + " " + c.Version
	}
	deps := map[string][]string{}
	for _, d := range bom.Dependencies {
		deps[d.Ref] = d.DependsOn
	}
	for _, bin := range []string{worker, cli} {
		out, err := exec.Command("go", "version", "-m", bin).Output()
		require.NoError(t, err)
		modules := goVersionModules(t, string(out))
		require.NotEmpty(t, modules)
		ref := "binary:" + bin[strings.LastIndex(bin, "/")+1:] + "@" + platform(t, string(out))
		require.Contains(t, byRef, ref)
		for _, m := range modules {
			purl := "pkg:golang/" + m[0] + "@" + m[1]
			assert.Equal(t, "library "+m[0]+" "+m[1], byRef[purl], "go version -m: %s %s", m[0], m[1])
			assert.Contains(t, deps[ref], purl, "%s depends on %s", ref, purl)
		}
		goVersion := strings.TrimSpace(strings.SplitN(string(out), ":", 2)[1])
		goVersion = strings.Fields(goVersion)[0]
		assert.Contains(t, deps[ref], "pkg:golang/stdlib@"+goVersion)
		assert.Contains(t, deps["release"], ref)
	}
	assert.Contains(t, byRef, "pkg:golang/go.temporal.io/sdk@"+temporalSDK(t), "the SDK the worker links")
}

// goVersionModules are the modules `go version -m` prints, each as it was
// linked: [path, version], a replacement's where "=>" names one.
func goVersionModules(t *testing.T, out string) [][2]string {
	t.Helper()
	var mods [][2]string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[0] == "dep":
			mods = append(mods, [2]string{f[1], f[2]})
		case len(f) >= 3 && f[0] == "=>":
			mods[len(mods)-1] = [2]string{f[1], f[2]}
		}
	}
	return mods
}

func platform(t *testing.T, out string) string {
	t.Helper()
	var goos, goarch string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "build" {
			if v, ok := strings.CutPrefix(f[1], "GOOS="); ok {
				goos = v
			}
			if v, ok := strings.CutPrefix(f[1], "GOARCH="); ok {
				goarch = v
			}
		}
	}
	require.NotEmpty(t, goos)
	return goos + "/" + goarch
}

// temporalSDK is the SDK's version in the finalizer's go.mod.
func temporalSDK(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "go.temporal.io/sdk")
	cmd.Dir = repoRoot
	out, err := cmd.Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}
