// Package version says which build of the finalizer is running: the module
// version, the commit it was built from and the Go release, read from the
// build information the go command embeds in every binary.
//
// A release build names its version and commit explicitly, because a binary
// built from a clone at a tag, or from a source tarball (no .git), or where
// GOFLAGS says -buildvcs=false, cannot always read them back:
//
//	go build -ldflags "-X github.com/checkpoint-finalizer/finalizer/internal/version.version=v1.2.0
//	  -X github.com/checkpoint-finalizer/finalizer/internal/version.revision=$(git rev-parse HEAD)" ./...
package version

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version and revision override the module version and the commit when
// set at link time (-ldflags -X, see the package documentation); empty
// otherwise.
var version, revision string

// Info is one binary's build.
type Info struct {
	// Version is the version the release build set (-ldflags -X), else
	// the module version: a tag ("v0.4.0"), a pseudo-version derived from
	// the commit, or "(devel)" when built without version control
	// information.
	Version string `json:"version"`
	// Revision is the commit the release build set (-ldflags -X), else the
	// one the go command recorded, with "-dirty" when the tree had changes;
	// "unknown" when built without either.
	Revision  string `json:"revision"`
	GoVersion string `json:"goVersion"`
}

// Read returns the running binary's build.
func Read() Info {
	info := readBuildInfo()
	if version != "" {
		info.Version = version
	}
	if revision != "" {
		info.Revision = revision
	}
	return info
}

// readBuildInfo is what the go command recorded in the binary.
func readBuildInfo() Info {
	info := Info{Version: "(devel)", Revision: "unknown", GoVersion: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	if v := bi.Main.Version; v != "" {
		info.Version = v
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev != "" {
		info.Revision = rev
		if modified == "true" {
			info.Revision += "-dirty"
		}
	}
	return info
}

// String is what --version prints: "<program> <version> (<revision>, <go>)".
func (i Info) String() string {
	return fmt.Sprintf("%s (%s, %s)", i.Version, i.Revision, i.GoVersion)
}

// Requested reports whether a binary's arguments ask for its build:
// --version, -version or version first, as every binary of the module
// answers before it reads any other flag.
func Requested(args []string) bool {
	return len(args) > 0 && (args[0] == "--version" || args[0] == "-version" || args[0] == "version")
}

// Print writes what --version prints for program to w.
func Print(w io.Writer, program string) error {
	_, err := fmt.Fprintln(w, program, Read())
	return err
}
