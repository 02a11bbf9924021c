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

	"github.com/checkpoint-finalizer/finalizer/deploy/helm/chart-test/chartpkg"
)

func main() {
	dir := flag.String("chart", "deploy/helm/finalizer", "chart directory")
	version := flag.String("version", "", "release version (v1.2.0 or 1.2.0)")
	out := flag.String("o", ".", "output directory")
	flag.Parse()
	path, err := chartpkg.Package(*dir, *version, *out)
	if err != nil {
		fmt.Fprintf(os.Stderr, "package-chart: %v\n", err)
		os.Exit(2)
	}
	fmt.Println(path)
}
