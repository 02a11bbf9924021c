package charttest

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	release "helm.sh/helm/v4/pkg/release/v1"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/kubetest"
)

// chartDir is the chart under test, from this package's directory.
var chartDir = filepath.Join("..", "finalizer")

// namespace the releases are rendered into; the test creates it for real.
const namespace = "checkpoint-finalizer"

// releaseName is the release's name; the chart's objects are named after it.
const releaseName = "finalizer"

// renderChart renders the chart with vals as `helm install --dry-run`
// (client side) does: values merged over values.yaml, checked against
// values.schema.json, templates executed, hooks kept apart. The error is
// Helm's, as an operator would read it.
func renderChart(vals map[string]any) ([]*unstructured.Unstructured, error) {
	chrt, err := loader.Load(chartDir)
	if err != nil {
		return nil, err
	}
	install := action.NewInstall(action.NewConfiguration())
	install.DryRunStrategy = action.DryRunClient
	install.Replace = true
	install.ReleaseName = releaseName
	install.Namespace = namespace
	// The API server the objects are applied to (Helm's client-side
	// default is an old v1.20, below the chart's kubeVersion).
	kv, err := common.ParseKubeVersion(kubetest.KubeVersion)
	if err != nil {
		return nil, err
	}
	install.KubeVersion = kv
	rel, err := install.Run(chrt, vals)
	if err != nil {
		return nil, err
	}
	r, ok := rel.(*release.Release)
	if !ok {
		return nil, fmt.Errorf("release of type %T", rel)
	}
	if len(r.Hooks) > 0 {
		return nil, fmt.Errorf("the chart has %d hooks; it should have none", len(r.Hooks))
	}
	return splitObjects(r.Manifest)
}

// splitObjects decodes a rendered manifest into objects, in the order Helm
// would install them.
func splitObjects(manifest string) ([]*unstructured.Unstructured, error) {
	docs := releaseutil.SplitManifests(manifest)
	keys := make([]string, 0, len(docs))
	for k := range docs {
		keys = append(keys, k)
	}
	sort.Sort(releaseutil.BySplitManifestsOrder(keys))
	var out []*unstructured.Unstructured
	for _, k := range keys {
		doc := docs[k]
		if strings.TrimSpace(stripComments(doc)) == "" {
			continue
		}
		obj := &unstructured.Unstructured{}
		// Through JSON, as Helm sends it: numbers become int64 and float64.
		j, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			return nil, fmt.Errorf("%s: %w\n%s", k, err, doc)
		}
		if err := obj.UnmarshalJSON(j); err != nil {
			return nil, fmt.Errorf("%s: %w\n%s", k, err, doc)
		}
		out = append(out, obj)
	}
	return out, nil
}

func stripComments(doc string) string {
	var b strings.Builder
	for line := range strings.Lines(doc) {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// mustRender renders vals and fails the test on an error.
func mustRender(t *testing.T, vals map[string]any) []*unstructured.Unstructured {
	t.Helper()
	objs, err := renderChart(vals)
	require.NoError(t, err)
	require.NotEmpty(t, objs)
	return objs
}
