package worker

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"

	"go.temporal.io/sdk/client"
)

// fileError says which setting named a file that does not load.
type fileError struct {
	setting string
	err     error
}

func (e *fileError) Error() string { return fmt.Sprintf("%s: %v", field(e.setting), e.err) }
func (e *fileError) Unwrap() error { return e.err }

func (t TLSConfig) enabled() bool {
	return t.Enabled || t.CAFile != "" || t.CertFile != "" || t.KeyFile != "" || t.ServerName != ""
}

// load builds the TLS configuration, nil when TLS is off.
func (t TLSConfig) load() (*tls.Config, error) {
	if !t.enabled() {
		return nil, nil
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, &fileError{"temporal-tls-ca-file", err}
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, &fileError{"temporal-tls-ca-file", fmt.Errorf("%s holds no PEM certificate", t.CAFile)}
		}
		c.RootCAs = pool
	}
	if t.CertFile != "" || t.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, &fileError{"temporal-tls-cert-file", err}
		}
		c.Certificates = []tls.Certificate{cert}
	}
	return c, nil
}

// connection loads what client.Options needs to reach Temporal securely:
// the TLS configuration and the API key credentials, nil when unused.
func (t TemporalConfig) connection() (client.ConnectionOptions, client.Credentials, error) {
	tlsConfig, err := t.TLS.load()
	if err != nil {
		return client.ConnectionOptions{}, nil, fmt.Errorf("temporal TLS: %w", err)
	}
	key, err := readSecret(t.APIKey, t.APIKeyFile)
	if err != nil {
		return client.ConnectionOptions{}, nil, fmt.Errorf("temporal API key: %w", err)
	}
	var creds client.Credentials
	if key != "" {
		// Without an explicit TLS configuration the SDK turns TLS on with
		// the system roots for an API key: a key never travels in clear.
		creds = client.NewAPIKeyStaticCredentials(key.Reveal())
	}
	return client.ConnectionOptions{TLS: tlsConfig}, creds, nil
}
