package kubetest

import (
	"fmt"
	"syscall"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Freeze stops the API server's process (SIGSTOP): its port still accepts
// connections, but nothing answers, as with a hung server or a network that
// drops packets. Thaw resumes it; Stop works on a frozen server too.
func (s *Server) Freeze() error { return s.apiserver.signal(syscall.SIGSTOP) }

// Thaw resumes a server Freeze stopped.
func (s *Server) Thaw() error { return s.apiserver.signal(syscall.SIGCONT) }

// WriteKubeconfig writes a kubeconfig file whose current context reaches
// the API server with token, in namespace: what a worker outside the
// cluster is given.
func (s *Server) WriteKubeconfig(path, token, namespace string) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["kubetest"] = &clientcmdapi.Cluster{Server: s.URL, CertificateAuthorityData: s.CAData}
	kc.AuthInfos["kubetest"] = &clientcmdapi.AuthInfo{Token: token}
	kc.Contexts["kubetest"] = &clientcmdapi.Context{Cluster: "kubetest", AuthInfo: "kubetest", Namespace: namespace}
	kc.CurrentContext = "kubetest"
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return fmt.Errorf("kubetest: write kubeconfig: %w", err)
	}
	return nil
}
