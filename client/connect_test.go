package client_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/client"
)

func TestConnectionPlaintextByDefault(t *testing.T) {
	t.Parallel()
	opts, err := client.Connection{Address: "127.0.0.1:7233", Namespace: "ns"}.Options()
	require.NoError(t, err)
	assert.Nil(t, opts.ConnectionOptions.TLS, "the dev server speaks plaintext")
	assert.Nil(t, opts.Credentials)
	assert.Equal(t, "127.0.0.1:7233", opts.HostPort)
	assert.Equal(t, "ns", opts.Namespace)
}

func TestConnectionAPIKey(t *testing.T) {
	t.Parallel()
	opts, err := client.Connection{Address: "x.tmprl.cloud:7233", APIKey: "k"}.Options()
	require.NoError(t, err)
	assert.NotNil(t, opts.Credentials, "the SDK turns TLS on for an API key")
	c := client.Connection{Address: "a:1", APIKey: "s3cret"}
	assert.NotContains(t, c.String(), "s3cret")
	assert.NotContains(t, fmt.Sprintf("%v %+v", c, c), "s3cret")
}

func TestConnectionTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ca, cert, key := writeCert(t, dir)

	cfg, err := client.Connection{TLSCA: ca, TLSCert: cert, TLSKey: key, TLSServerName: "temporal.internal"}.TLSConfig()
	require.NoError(t, err)
	assert.NotNil(t, cfg.RootCAs)
	assert.Len(t, cfg.Certificates, 1)
	assert.Equal(t, "temporal.internal", cfg.ServerName)

	cfg, err = client.Connection{TLS: true}.TLSConfig()
	require.NoError(t, err)
	require.NotNil(t, cfg)
	assert.Nil(t, cfg.RootCAs, "system roots")

	_, err = client.Connection{TLSCert: cert}.TLSConfig()
	assert.ErrorContains(t, err, "cert and key go together")
	_, err = client.Connection{TLSCA: key}.TLSConfig()
	assert.ErrorContains(t, err, "no PEM certificate")
	_, err = client.Connection{TLSCA: filepath.Join(dir, "missing.pem")}.TLSConfig()
	assert.ErrorIs(t, err, os.ErrNotExist)
	_, err = client.Connection{TLSCert: cert, TLSKey: cert}.TLSConfig()
	assert.ErrorContains(t, err, "TLS client certificate")
}

// writeCert writes a self-signed certificate (its own CA) and its key.
func writeCert(t *testing.T, dir string) (ca, cert, key string) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "temporal.internal"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, DNSNames: []string{"temporal.internal"},
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(priv)
	require.NoError(t, err)
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600))
	return cert, cert, key
}
