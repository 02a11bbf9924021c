// Package kubetest runs a real Kubernetes API server for tests: etcd and
// kube-apiserver as child processes on loopback, free ports, a temporary
// directory of their own, a static admin token (group system:masters) and
// optional RBAC authorization. No kubelet, no controllers: namespaces and
// ConfigMaps work, pods never run.
//
// The binaries come from scripts/kube-apiserver.sh (a cached build of
// k8s.io/kubernetes and Debian's etcd); Binaries runs it when they are
// missing, which takes ~20 minutes cold, so run cold with -timeout 40m or run
// the script first.
//
// A test binary shares one server: call Main from TestMain and Shared from
// the tests; the server starts on first use and stops after the last test.
// Logs stay on disk, their path printed, when a test failed or the server
// did not start.
//
// Optional fault proxies (Proxy) sit between kube-apiserver and etcd
// (plaintext gRPC, so a fault can trigger on bytes of a request) and in front
// of the API server (TLS passes through untouched; faults trigger on the
// request sequence of an HTTP/1.1 client).
package kubetest
