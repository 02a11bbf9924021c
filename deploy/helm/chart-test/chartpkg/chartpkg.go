// Package chartpkg packages the worker's chart for a release, as `helm
// package --version V --app-version V` does, with Helm's own SDK (no helm
// binary on the release machine).
package chartpkg

import (
	"fmt"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
)

// Package loads the chart in dir, sets its version and appVersion to the
// release's (a tag "v1.2.0" gives 1.2.0: chart versions are SemVer without
// the "v", and the image tag is the appVersion) and writes
// <name>-<version>.tgz into outDir with every timestamp mtime (the
// release commit's time: the same chart gives the same bytes, wherever it
// was checked out). It returns the archive's path.
func Package(dir, release, outDir string, mtime time.Time) (string, error) {
	v := strings.TrimPrefix(release, "v")
	if _, err := semver.StrictNewVersion(v); err != nil {
		return "", fmt.Errorf("chartpkg: release %q is not a SemVer version: %w", release, err)
	}
	chrt, err := loader.Load(dir)
	if err != nil {
		return "", err
	}
	chrt.Metadata.Version, chrt.Metadata.AppVersion = v, v
	chrt.StampModTimes(mtime)
	if err := chrt.Validate(); err != nil {
		return "", fmt.Errorf("chartpkg: %w", err)
	}
	if chrt.Metadata.APIVersion != chart.APIVersionV2 {
		return "", fmt.Errorf("chartpkg: chart apiVersion %q, want %s", chrt.Metadata.APIVersion, chart.APIVersionV2)
	}
	return chartutil.Save(chrt, outDir)
}
