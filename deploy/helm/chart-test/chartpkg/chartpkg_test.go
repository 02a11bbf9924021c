package chartpkg

import (
	"path/filepath"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/chart/v2/loader"
)

// A release's package is the chart at the release's version, with every
// template, the schema, the alert rules and the docs, and loads back.
func TestPackage(t *testing.T) {
	out := t.TempDir()
	path, err := Package("../../finalizer", "v1.2.3", out)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "finalizer-1.2.3.tgz" {
		t.Errorf("archive %s", path)
	}
	chrt, err := loader.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if chrt.Metadata.Version != "1.2.3" || chrt.Metadata.AppVersion != "1.2.3" {
		t.Errorf("version %s appVersion %s", chrt.Metadata.Version, chrt.Metadata.AppVersion)
	}
	if len(chrt.Schema) == 0 {
		t.Error("values.schema.json not packaged")
	}
	var names []string
	for _, f := range append(chrt.Templates, chrt.Files...) {
		names = append(names, f.Name)
	}
	for _, want := range []string{"templates/deployment.yaml", "templates/prometheusrule.yaml", "files/alerts.yaml", "README.md"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Errorf("%s not packaged (%v)", want, names)
		}
	}
}

func TestPackageRefusesBadVersion(t *testing.T) {
	if _, err := Package("../../finalizer", "1.2", t.TempDir()); err == nil || !strings.Contains(err.Error(), "SemVer") {
		t.Errorf("version 1.2: %v", err)
	}
}
