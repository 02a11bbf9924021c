package kubetest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/mtlstest"
)

// pki holds the files the API server needs: a serving certificate for
// 127.0.0.1 signed by the one test CA (so clients verify TLS instead of
// skipping it, through the front proxy too), and the service-account key.
type pki struct {
	caPEM             []byte
	caFile            string
	certFile, keyFile string
	saKeyFile         string
}

// newPKI writes the files into dir, with Go's crypto: no openssl needed.
func newPKI(dir string) (*pki, error) {
	ca, err := mtlstest.NewCA(dir)
	if err != nil {
		return nil, err
	}
	p := &pki{
		caFile:    ca.CAFile,
		certFile:  filepath.Join(dir, "apiserver.crt"),
		keyFile:   filepath.Join(dir, "apiserver.key"),
		saKeyFile: filepath.Join(dir, "sa.key"),
	}
	if err := ca.IssueServer(p.certFile, p.keyFile, "kube-apiserver", time.Now().Add(24*time.Hour),
		[]string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		[]net.IP{net.IPv4(127, 0, 0, 1)}); err != nil {
		return nil, err
	}
	if p.caPEM, err = os.ReadFile(ca.CAFile); err != nil {
		return nil, err
	}
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	sa := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(saKey)})
	if err := os.WriteFile(p.saKeyFile, sa, 0o600); err != nil {
		return nil, err
	}
	return p, nil
}
