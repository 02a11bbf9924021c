// Package mtlstest runs a real Temporal server (v1.29.1, the cached
// temporal-server of scripts/temporal-server.sh, on in-memory SQLite) whose
// frontend speaks TLS and refuses clients without a certificate signed by a
// CA generated for the test: the setting in which the worker's and the
// CLI's Temporal connection (TLS and mTLS from flags, variables or a
// temporal.toml profile) is proven. The dev server (temporal server
// start-dev, CLI v1.5.1) has no TLS option.
package mtlstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// PKI is a CA and the PEM files it signed: the server's certificate (for
// 127.0.0.1 and localhost) and a client certificate.
type PKI struct {
	CAFile                string
	ServerCert, ServerKey string
	ClientCert, ClientKey string
	// ServerName is a name the server's certificate holds besides its IP.
	ServerName string

	ca    *x509.Certificate
	caKey *ecdsa.PrivateKey
	// serial is the last serial number issued.
	serial int64
}

// NewCA generates a CA into dir (ca.pem), without certificates: the one
// test CA every harness that needs TLS issues from (the mTLS Temporal
// server, the kube-apiserver, the worker's TLS configuration tests).
func NewCA(dir string) (PKI, error) {
	p := PKI{CAFile: filepath.Join(dir, "ca.pem")}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return PKI{}, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "finalizer test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return PKI{}, fmt.Errorf("CA certificate: %w", err)
	}
	if p.ca, err = x509.ParseCertificate(caDER); err != nil {
		return PKI{}, err
	}
	p.caKey, p.serial = caKey, 1
	if err := writePEM(p.CAFile, "CERTIFICATE", caDER); err != nil {
		return PKI{}, err
	}
	return p, nil
}

// NewPKI generates the CA and both certificates into dir.
func NewPKI(dir string) (PKI, error) {
	p, err := NewCA(dir)
	if err != nil {
		return PKI{}, err
	}
	p.ServerCert, p.ServerKey = filepath.Join(dir, "server.pem"), filepath.Join(dir, "server-key.pem")
	p.ClientCert, p.ClientKey = filepath.Join(dir, "client.pem"), filepath.Join(dir, "client-key.pem")
	p.ServerName = "localhost"
	day := time.Now().Add(24 * time.Hour)
	if err := p.IssueServer(p.ServerCert, p.ServerKey, "temporal frontend", day,
		[]string{p.ServerName}, []net.IP{net.IPv4(127, 0, 0, 1)}); err != nil {
		return PKI{}, err
	}
	if err := p.IssueClient(p.ClientCert, p.ClientKey, "finalizer", day); err != nil {
		return PKI{}, err
	}
	return p, nil
}

// IssueServer writes a serving certificate for the names and addresses
// given and its key, signed by the CA and valid until notAfter.
func (p *PKI) IssueServer(certFile, keyFile, name string, notAfter time.Time, dns []string, ips []net.IP) error {
	return p.issue(certFile, keyFile, name, x509.ExtKeyUsageServerAuth, notAfter, dns, ips)
}

// IssueClient writes a new client certificate and its key, signed by the
// CA and valid until notAfter (a rotation's next certificate, or one about
// to expire).
func (p *PKI) IssueClient(certFile, keyFile, name string, notAfter time.Time) error {
	return p.issue(certFile, keyFile, name, x509.ExtKeyUsageClientAuth, notAfter, nil, nil)
}

func (p *PKI) issue(certFile, keyFile, name string, usage x509.ExtKeyUsage, notAfter time.Time, dns []string, ips []net.IP) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	p.serial++
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(p.serial), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: notAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{usage},
		DNSNames:    dns, IPAddresses: ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &key.PublicKey, p.caKey)
	if err != nil {
		return fmt.Errorf("%s certificate: %w", name, err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	if err := writePEM(certFile, "CERTIFICATE", der); err != nil {
		return err
	}
	return writePEM(keyFile, "PRIVATE KEY", keyDER)
}

func writePEM(path, typ string, der []byte) error {
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
