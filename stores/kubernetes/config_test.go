package kubernetes_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/client-go/rest"

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
