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
}

// NewPKI generates the CA and both certificates into dir.
func NewPKI(dir string) (PKI, error) {
	p := PKI{
		CAFile:     filepath.Join(dir, "ca.pem"),
		ServerCert: filepath.Join(dir, "server.pem"), ServerKey: filepath.Join(dir, "server-key.pem"),
		ClientCert: filepath.Join(dir, "client.pem"), ClientKey: filepath.Join(dir, "client-key.pem"),
		ServerName: "localhost",
	}
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
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return PKI{}, err
	}
	if err := writePEM(p.CAFile, "CERTIFICATE", caDER); err != nil {
		return PKI{}, err
	}
	leaves := []struct {
		serial        int64
		name          string
		usage         x509.ExtKeyUsage
		cert, keyFile string
		dns           []string
		ips           []net.IP
	}{
		{2, "temporal frontend", x509.ExtKeyUsageServerAuth, p.ServerCert, p.ServerKey,
			[]string{p.ServerName}, []net.IP{net.IPv4(127, 0, 0, 1)}},
		{3, "finalizer", x509.ExtKeyUsageClientAuth, p.ClientCert, p.ClientKey, nil, nil},
	}
	for _, l := range leaves {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return PKI{}, err
		}
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(l.serial), Subject: pkix.Name{CommonName: l.name},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
			KeyUsage:    x509.KeyUsageDigitalSignature,
			ExtKeyUsage: []x509.ExtKeyUsage{l.usage},
			DNSNames:    l.dns, IPAddresses: l.ips,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			return PKI{}, fmt.Errorf("%s certificate: %w", l.name, err)
		}
		keyDER, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return PKI{}, err
		}
		if err := writePEM(l.cert, "CERTIFICATE", der); err != nil {
			return PKI{}, err
		}
		if err := writePEM(l.keyFile, "PRIVATE KEY", keyDER); err != nil {
			return PKI{}, err
		}
	}
	return p, nil
}

func writePEM(path, typ string, der []byte) error {
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
