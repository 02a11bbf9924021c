// Command package-chart writes the worker chart's release package:
//
//	package-chart -chart deploy/helm/finalizer -version v1.2.0 -o dist/
//
// and prints its path (see package chartpkg).
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/checkpoint-finalizer/finalizer/deploy/helm/chart-test/chartpkg"
)

func main() {
	dir := flag.String("chart", "deploy/helm/finalizer", "chart directory")
	version := flag.String("version", "", "release version (v1.2.0 or 1.2.0)")
	out := flag.String("o", ".", "output directory")
	flag.Parse()
	// The release commit's time (scripts/release.sh exports it).
	mtime := time.Unix(0, 0).UTC()
	if e := os.Getenv("SOURCE_DATE_EPOCH"); e != "" {
		sec, err := strconv.ParseInt(e, 10, 64)
		if err != nil {
			fmt.Fprintf(os.Stderr, "package-chart: SOURCE_DATE_EPOCH %q: %v\n", e, err)
			os.Exit(2)
		}
		mtime = time.Unix(sec, 0).UTC()
	}
	path, err := chartpkg.Package(*dir, *version, *out, mtime)
	if err != nil {
		fmt.Fprintf(os.Stderr, "package-chart: %v\n", err)
		os.Exit(2)
	}
	fmt.Println(path)
}
