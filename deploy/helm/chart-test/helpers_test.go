package charttest

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// componentLabel tells the workers' objects from the Web UI's.
const componentLabel = "app.kubernetes.io/component"

// find returns the one worker object of kind (the Web UI's, when enabled,
// are not the worker's).
func find(t *testing.T, objs []*unstructured.Unstructured, kind string) *unstructured.Unstructured {
	t.Helper()
	var found *unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind && o.GetLabels()[componentLabel] != "ui" {
			require.Nil(t, found, "one %s", kind)
			found = o
		}
	}
	require.NotNil(t, found, "a %s", kind)
	return found
}

// typed converts the one object of kind into its Go type, refusing a
// field the type does not have.
func typed[T any](t *testing.T, objs []*unstructured.Unstructured, kind string) *T {
	t.Helper()
	var out T
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(find(t, objs, kind).Object, &out, true), kind)
	return &out
}

func kinds(objs []*unstructured.Unstructured) map[string]bool {
	out := map[string]bool{}
	for _, o := range objs {
		out[o.GetKind()] = true
	}
	return out
}
