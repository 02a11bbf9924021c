package chartpkg

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v4/pkg/chart/v2/loader"
)

// A release's package is the chart at the release's version, with every
// template, the schema, the alert rules and the docs, and loads back.
func TestPackage(t *testing.T) {
	out := t.TempDir()
	path, err := Package("../../finalizer", "v1.2.3", out, mtime)
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
	if _, err := Package("../../finalizer", "1.2", t.TempDir(), mtime); err == nil || !strings.Contains(err.Error(), "SemVer") {
		t.Errorf("version 1.2: %v", err)
	}
}

var mtime = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// The same chart and time give the same archive, byte for byte, even
// from a checkout whose files have other timestamps, so a release's
// SHA256SUMS can be checked by rebuilding it.
func TestPackageIsReproducible(t *testing.T) {
	touched := t.TempDir()
	if err := os.CopyFS(touched, os.DirFS("../../finalizer")); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	err := filepath.WalkDir(touched, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, later, later)
	})
	if err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	for _, dir := range []string{"../../finalizer", touched} {
		path, err := Package(dir, "v1.2.3", t.TempDir(), mtime)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b)
	}
	if !bytes.Equal(got[0], got[1]) {
		t.Error("packages of the same chart from two checkouts differ")
	}
}
