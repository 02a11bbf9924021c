// Package charttest proves the worker's Helm chart (deploy/helm/finalizer)
// and its image. It is a module of its own so that Helm's SDK and
// go-containerregistry, needed by these tests only, stay out of the
// finalizer module's go.mod; scripts/test.sh runs it with the rest.
//
// The chart is rendered with Helm's own engine (as `helm template` and
// `helm install` do), every object applied with server-side dry-run to the
// real kube-apiserver the finalizer module's harness starts
// (internal/testenv/servers/kubetest), checked against the worker it configures, and
// compared with the kustomize base (deploy/kubernetes) so that both deploy
// the same worker. Package chartpkg (cmd/package-chart) packages the chart
// for scripts/release.sh with the same SDK.
package charttest
