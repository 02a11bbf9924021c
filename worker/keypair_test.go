package worker

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/mtlstest"
)

// writeKeyPair writes a certificate of the one test CA and its key as PEM
// files.
func writeKeyPair(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	ca, err := mtlstest.NewCA(dir)
	require.NoError(t, err)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	require.NoError(t, ca.IssueClient(certFile, keyFile, "finalizer-test", time.Now().Add(time.Hour)))
	return certFile, keyFile
}
