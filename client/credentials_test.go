package client

import (
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/mtlstest"
)

// A rotated certificate is what the next handshake presents; a pair half
// written keeps the last good one.
func TestRotatingCertificate(t *testing.T) {
	dir := t.TempDir()
	pki, err := mtlstest.NewPKI(dir)
	require.NoError(t, err)
	cert, key := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	require.NoError(t, pki.IssueClient(cert, key, "first", time.Now().Add(time.Hour)))
	r, err := newRotatingCertificate(cert, key)
	require.NoError(t, err)
	assert.Equal(t, "first", commonName(t, r))

	next := t.TempDir()
	require.NoError(t, pki.IssueClient(filepath.Join(next, "c.pem"), filepath.Join(next, "k.pem"), "second", time.Now().Add(time.Hour)))
	require.NoError(t, os.Rename(filepath.Join(next, "k.pem"), key))
	assert.Equal(t, "first", commonName(t, r), "the key alone does not match the old certificate: the old pair stays")
	require.NoError(t, os.Rename(filepath.Join(next, "c.pem"), cert))
	assert.Equal(t, "second", commonName(t, r))

	require.NoError(t, os.WriteFile(cert, []byte("half written"), 0o600))
	assert.Equal(t, "second", commonName(t, r), "an unreadable pair keeps the last good one")
}

func commonName(t *testing.T, r *rotatingCertificate) string {
	t.Helper()
	c, err := r.get(nil)
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(c.Certificate[0])
	require.NoError(t, err)
	return leaf.Subject.CommonName
}

// A rotated API key is what the next call sends; an emptied file keeps
// the last good key.
func TestRotatingAPIKey(t *testing.T) {
	file := filepath.Join(t.TempDir(), "key")
	require.NoError(t, os.WriteFile(file, []byte("first\n"), 0o600))
	c := Connection{APIKeyFile: file}
	key, problem := c.apiKey()
	require.Nil(t, problem)
	r := &rotatingAPIKey{c: c, current: key}
	got, err := r.get(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "first", got)

	require.NoError(t, os.WriteFile(file, []byte("second-key\n"), 0o600))
	got, _ = r.get(t.Context())
	assert.Equal(t, "second-key", got)
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	got, _ = r.get(t.Context())
	assert.Equal(t, "second-key", got, "an empty file keeps the last good key")
}
