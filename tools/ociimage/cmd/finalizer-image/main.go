// Command finalizer-image builds the finalizer's image from static binaries
// without a container engine and writes it as an OCI archive:
//
//	finalizer-image -worker bin/finalizer-worker -cli bin/finalizer \
//	    -version 1.2.0 -revision $(git rev-parse HEAD) -tag 1.2.0 \
//	    -platform linux/amd64 -o finalizer-worker-1.2.0.oci.tar
//
// Timestamps come from SOURCE_DATE_EPOCH (the release commit's time), so a
// rebuild from the same binaries has the same digest. Prints the digest.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/checkpoint-finalizer/finalizer/tools/ociimage"
)

func main() {
	var s ociimage.Spec
	var tag, out, platform string
	flag.StringVar(&s.Worker, "worker", "", "static finalizer-worker binary")
	flag.StringVar(&s.CLI, "cli", "", "static finalizer binary")
	flag.StringVar(&s.CACerts, "ca-certs", ociimage.CACertPath, "PEM CA bundle to ship")
	flag.StringVar(&s.Version, "version", "", "release version (label org.opencontainers.image.version)")
	flag.StringVar(&s.Revision, "revision", "", "commit (label org.opencontainers.image.revision)")
	flag.StringVar(&s.Source, "source", "https://github.com/checkpoint-finalizer/finalizer", "source repository (label)")
	flag.StringVar(&tag, "tag", "", "tag the archive names the image by (default: -version)")
	flag.StringVar(&platform, "platform", "linux/amd64", "GOOS/GOARCH the binaries were built for")
	flag.StringVar(&out, "o", "", "output OCI archive")
	flag.Parse()
	if s.Worker == "" || s.CLI == "" || out == "" {
		fail(fmt.Errorf("-worker, -cli and -o are required"))
	}
	var ok bool
	if s.OS, s.Architecture, ok = strings.Cut(platform, "/"); !ok {
		fail(fmt.Errorf("-platform %q is not GOOS/GOARCH", platform))
	}
	if tag == "" {
		tag = s.Version
	}
	s.Created = time.Unix(0, 0).UTC()
	if e := os.Getenv("SOURCE_DATE_EPOCH"); e != "" {
		sec, err := strconv.ParseInt(e, 10, 64)
		if err != nil {
			fail(fmt.Errorf("SOURCE_DATE_EPOCH %q: %w", e, err))
		}
		s.Created = time.Unix(sec, 0).UTC()
	}
	img, err := ociimage.Build(s)
	if err != nil {
		fail(err)
	}
	if err := ociimage.WriteArchive(img, tag, out, s.Created); err != nil {
		fail(err)
	}
	d, err := img.Digest()
	if err != nil {
		fail(err)
	}
	fmt.Println(d)
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "finalizer-image: %v\n", err)
	os.Exit(2)
}
