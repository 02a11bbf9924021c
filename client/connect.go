package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"

	"go.temporal.io/sdk/client"
)

// Connection says how to reach the Temporal frontend: the settings the
// command-line tool takes as flags and environment variables, the same as
// the worker's.
type Connection struct {
	// Address is the frontend's host:port.
	Address   string
	Namespace string
	// TLS turns TLS on with the system roots; any other TLS setting
	// implies it.
	TLS bool
	// TLSCA is a PEM file of the CA that signed the server's certificate;
	// empty: the system roots.
	TLSCA string
	// TLSCert and TLSKey are PEM files of a client certificate (mTLS); both
	// or neither.
	TLSCert, TLSKey string
	// TLSServerName overrides the name the server's certificate is checked
	// against.
	TLSServerName string
	// APIKey is sent as a bearer token; it turns TLS on (system roots)
	// when no TLS setting does, so a key never travels in clear. String
	// never shows it.
	APIKey string
}

// String describes the connection without its API key.
func (c Connection) String() string {
	return fmt.Sprintf("%s namespace %q tls=%v apiKey=%v", c.Address, c.Namespace, c.tlsWanted(), c.APIKey != "")
}

// tlsWanted: any TLS setting turns TLS on; plaintext otherwise, as the dev
// server expects.
func (c Connection) tlsWanted() bool {
	return c.TLS || c.TLSCA != "" || c.TLSCert != "" || c.TLSKey != "" || c.TLSServerName != ""
}

// TLSConfig builds the TLS configuration, nil when no TLS setting is given.
func (c Connection) TLSConfig() (*tls.Config, error) {
	if !c.tlsWanted() {
		return nil, nil
	}
	cfg := &tls.Config{ServerName: c.TLSServerName, MinVersion: tls.VersionTLS12}
	if c.TLSCA != "" {
		pem, err := os.ReadFile(c.TLSCA)
		if err != nil {
			return nil, fmt.Errorf("TLS CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("TLS CA %s: no PEM certificate in it", c.TLSCA)
		}
		cfg.RootCAs = pool
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return nil, fmt.Errorf("TLS client certificate: cert and key go together (cert %q, key %q)", c.TLSCert, c.TLSKey)
	}
	if c.TLSCert != "" {
		pair, err := tls.LoadX509KeyPair(c.TLSCert, c.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("TLS client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

// Options returns the Temporal client options for this connection; the
// caller adds its logger, interceptors, ...
func (c Connection) Options() (client.Options, error) {
	cfg, err := c.TLSConfig()
	if err != nil {
		return client.Options{}, err
	}
	opts := client.Options{
		HostPort:          c.Address,
		Namespace:         c.Namespace,
		ConnectionOptions: client.ConnectionOptions{TLS: cfg},
	}
	if c.APIKey != "" {
		opts.Credentials = client.NewAPIKeyStaticCredentials(c.APIKey)
	}
	return opts, nil
}

// Dial connects, checking that the frontend answers. base carries the
// caller's other options (logger, ...); the connection's fields override
// its address, namespace, TLS and credentials.
func (c Connection) Dial(ctx context.Context, base client.Options) (client.Client, error) {
	opts, err := c.Options()
	if err != nil {
		return nil, fmt.Errorf("temporal connection: %w", err)
	}
	base.HostPort, base.Namespace = opts.HostPort, opts.Namespace
	base.ConnectionOptions.TLS, base.Credentials = opts.ConnectionOptions.TLS, opts.Credentials
	tc, err := client.DialContext(ctx, base)
	if err != nil {
		return nil, fmt.Errorf("temporal connection to %s (namespace %q): %w", c.Address, c.Namespace, err)
	}
	return tc, nil
}
