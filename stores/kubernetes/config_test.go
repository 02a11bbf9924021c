package kubernetes_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/checkpoint-finalizer/finalizer/stores"
	"github.com/checkpoint-finalizer/finalizer/stores/kubernetes"
)

func TestConfigValidate(t *testing.T) {
	rc := &rest.Config{Host: "https://127.0.0.1:6443"}
	valid := []kubernetes.Config{
		{Namespace: "ns", REST: rc},
		{InCluster: true},
		{Kubeconfig: "/k", Context: "c"},
	}
	for _, c := range valid {
		assert.NoError(t, c.Validate(), "%+v", c)
	}
	invalid := []kubernetes.Config{
		{},                                  // no source
		{InCluster: true, Kubeconfig: "/k"}, // two sources
		{Namespace: "ns", REST: rc, InCluster: true},
		{InCluster: true, Context: "c"},         // context without kubeconfig
		{Namespace: "Not_A_Label", REST: rc},    // bad namespace
		{Namespace: "ns", REST: &rest.Config{}}, // no host
		{Namespace: "ns", REST: rc, MaxAttempts: -1},
	}
	for _, c := range invalid {
		assert.Error(t, c.Validate(), "%+v", c)
	}
	_, err := kubernetes.New(kubernetes.Config{REST: rc})
	assert.Error(t, err, "REST needs a namespace")
}

// Validate reports every broken rule at once, each naming its setting; a
// rule that involves another setting names it the same way.
func TestConfigValidateNamesTheSettings(t *testing.T) {
	err := kubernetes.Config{InCluster: true, Kubeconfig: "/k", Namespace: "Not_A_Label"}.Validate()
	require.ErrorIs(t, err, stores.ErrInvalid)
	var got []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		inv, ok := errors.AsType[*stores.InvalidError](e)
		require.True(t, ok, "%T", e)
		got = append(got, inv.Field+": "+inv.Rule)
	}
	require.Len(t, got, 2)
	assert.Equal(t, "kubeconfig: set either kubeconfig or in-cluster, not both", got[0])
	assert.Contains(t, got[1], `namespace: "Not_A_Label": `)

	err = kubernetes.Config{Context: "c"}.Validate()
	assert.ErrorContains(t, err, "invalid kubeconfig: required unless in-cluster (or REST) is set")
	assert.ErrorContains(t, err, "invalid context: needs kubeconfig")
}
