// Command finalizer-image builds the finalizer's image from static binaries
// without a container engine, one image per platform under one OCI image
// index, and writes it as one OCI archive, with a CycloneDX SBOM of the
// binaries beside it:
//
//	finalizer-image -bin bin -platforms "linux/amd64 linux/arm64" \
//	    -version 1.2.0 -revision $(git rev-parse HEAD) -tag 1.2.0 \
//	    -o finalizer-worker-image-v1.2.0.oci.tar -sbom finalizer-v1.2.0.cdx.json
//
// The binaries of each platform are bin/<os>-<arch>/finalizer-worker and
// bin/<os>-<arch>/finalizer. Timestamps come from SOURCE_DATE_EPOCH (the
// release commit's time), so a rebuild from the same binaries has the same
// digest. Prints the index's digest.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/checkpoint-finalizer/finalizer/tools/ociimage"
)

func main() {
	var base ociimage.Spec
	var bin, platforms, tag, out, sbom, sbomVersion string
	flag.StringVar(&bin, "bin", "", "folder of the binaries, one <os>-<arch> folder per platform")
	flag.StringVar(&platforms, "platforms", "linux/amd64", "GOOS/GOARCH list, space- or comma-separated")
	flag.StringVar(&base.CACerts, "ca-certs", ociimage.CACertPath, "PEM CA bundle to ship when -base-packages names no ca-certificates")
	var pins, debCache string
	flag.StringVar(&pins, "base-packages", "", "pin file of the base's Debian packages (base-packages.txt; default: none, the -ca-certs bundle alone)")
	flag.StringVar(&debCache, "deb-cache", "", "folder the pinned .deb files are kept in, fetched with apt-get when missing (required with -base-packages)")
	flag.StringVar(&base.Version, "version", "", "release version (label org.opencontainers.image.version)")
	flag.StringVar(&base.Revision, "revision", "", "commit (label org.opencontainers.image.revision)")
	flag.StringVar(&base.Source, "source", "https://github.com/checkpoint-finalizer/finalizer", "source repository (label)")
	flag.StringVar(&tag, "tag", "", "tag the archive names the image by (default: -version)")
	flag.StringVar(&out, "o", "", "output OCI archive")
	flag.StringVar(&sbom, "sbom", "", "output CycloneDX JSON SBOM of the binaries (default: none)")
	flag.StringVar(&sbomVersion, "sbom-version", "", "the release's version the SBOM names (default: -version)")
	flag.Parse()
	if bin == "" || out == "" {
		fail(fmt.Errorf("-bin and -o are required"))
	}
	if tag == "" {
		tag = base.Version
	}
	if sbomVersion == "" {
		sbomVersion = base.Version
	}
	if pins != "" {
		debs, err := fetchBase(pins, debCache)
		if err != nil {
			fail(err)
		}
		base.Debs = debs
	}
	base.Created = time.Unix(0, 0).UTC()
	if e := os.Getenv("SOURCE_DATE_EPOCH"); e != "" {
		sec, err := strconv.ParseInt(e, 10, 64)
		if err != nil {
			fail(fmt.Errorf("SOURCE_DATE_EPOCH %q: %w", e, err))
		}
		base.Created = time.Unix(sec, 0).UTC()
	}
	var specs []ociimage.Spec
	var binaries []string
	for _, p := range strings.FieldsFunc(platforms, func(r rune) bool { return r == ' ' || r == ',' }) {
		s := base
		var ok bool
		if s.OS, s.Architecture, ok = strings.Cut(p, "/"); !ok {
			fail(fmt.Errorf("-platforms: %q is not GOOS/GOARCH", p))
		}
		dir := filepath.Join(bin, s.OS+"-"+s.Architecture)
		s.Worker, s.CLI = filepath.Join(dir, "finalizer-worker"), filepath.Join(dir, "finalizer")
		specs = append(specs, s)
		binaries = append(binaries, s.Worker, s.CLI)
	}
	idx, err := ociimage.BuildIndex(specs)
	if err != nil {
		fail(err)
	}
	if err := ociimage.WriteIndexArchive(idx, tag, out, base.Created); err != nil {
		fail(err)
	}
	if sbom != "" {
		doc, err := ociimage.SBOM(ociimage.SBOMSpec{Binaries: binaries, Name: "checkpoint-finalizer", Version: sbomVersion, Created: base.Created,
			LibraryVersion: ociimage.LinkedLibrary()})
		if err != nil {
			fail(err)
		}
		if err := os.WriteFile(sbom, doc, 0o644); err != nil {
			fail(err)
		}
	}
	d, err := idx.Digest()
	if err != nil {
		fail(err)
	}
	fmt.Println(d)
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "finalizer-image: %v\n", err)
	os.Exit(2)
}

// fetchBase returns the pinned packages' .deb files, from cache or fetched.
func fetchBase(pins, cache string) ([]string, error) {
	if cache == "" {
		return nil, fmt.Errorf("-deb-cache is required with -base-packages")
	}
	pkgs, err := ociimage.ReadPins(pins)
	if err != nil {
		return nil, err
	}
	var debs []string
	for _, p := range pkgs {
		deb, err := p.Fetch(cache)
		if err != nil {
			return nil, err
		}
		debs = append(debs, deb)
	}
	return debs, nil
}
