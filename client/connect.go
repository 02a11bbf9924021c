package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"

	"go.temporal.io/sdk/client"
)

// Connection says how to reach the Temporal frontend. The worker and the
// command-line tool fill it the same way, with the same names, from the
// lowest layer to the highest: built-in defaults, Temporal's own
// configuration (LoadTemporalConfig: a temporal.toml profile, then the
// TEMPORAL_* variables), the FINALIZER_TEMPORAL_* variables, the flags.
type Connection struct {
	// Address is the frontend's host:port.
	Address   string
	Namespace string
	TLS       TLSConfig
	// APIKey is sent as a bearer token; it turns TLS on (system roots)
	// when no TLS setting does, so a key never travels in clear.
	APIKey Secret
	// APIKeyFile holds the API key instead (read by Options and Check);
	// it replaces APIKey.
	APIKeyFile string
}

// TLSConfig is TLS towards Temporal. It is on when Enabled or when any
// other field is set; without CAFile the system roots are trusted.
type TLSConfig struct {
	Enabled bool
	// CAFile is a PEM bundle of the CA that signed the server's
	// certificate.
	CAFile string
	// CertFile and KeyFile are a PEM client certificate and its key
	// (mTLS); both or neither.
	CertFile, KeyFile string
	// ServerName overrides the name the server's certificate is checked
	// against.
	ServerName string
}

// On says whether TLS is used: plaintext, as the dev server expects,
// unless a TLS setting is given.
func (t TLSConfig) On() bool {
	return t.Enabled || t.CAFile != "" || t.CertFile != "" || t.KeyFile != "" || t.ServerName != ""
}

// The settings' names: the worker's flags (-name) and, upper-snake-cased
// after FINALIZER_, their variables; the command-line tool takes the same
// flags. A SettingError names its setting with one of them.
const (
	SettingAddress       = "temporal-address"
	SettingNamespace     = "temporal-namespace"
	SettingProfile       = "temporal-profile"
	SettingTLS           = "temporal-tls"
	SettingTLSCAFile     = "temporal-tls-ca-file"
	SettingTLSCertFile   = "temporal-tls-cert-file"
	SettingTLSKeyFile    = "temporal-tls-key-file"
	SettingTLSServerName = "temporal-tls-server-name"
	// SettingAPIKey has no flag, only its variable: a flag shows in every
	// process listing.
	SettingAPIKey     = "temporal-api-key"
	SettingAPIKeyFile = "temporal-api-key-file"
)

// SettingError is a connection setting that does not load: a file missing
// or not PEM, a certificate without its key, ...
type SettingError struct {
	// Setting is one of the Setting* names.
	Setting string
	Err     error
}

func (e *SettingError) Error() string { return e.Setting + ": " + e.Err.Error() }
func (e *SettingError) Unwrap() error { return e.Err }

// String describes the connection without its API key.
func (c Connection) String() string {
	return fmt.Sprintf("%s namespace %q tls=%v apiKey=%v", c.Address, c.Namespace, c.TLS.On(), c.APIKey != "" || c.APIKeyFile != "")
}

// GoString keeps %#v from printing the API key.
func (c Connection) GoString() string { return "client.Connection{" + c.String() + "}" }

// Check loads what the connection names (TLS files, the API key file)
// without dialing and returns every problem at once.
func (c Connection) Check() []*SettingError {
	_, errs := c.TLS.load()
	if c.APIKey != "" && c.APIKeyFile != "" {
		return append(errs, &SettingError{SettingAPIKeyFile, errors.New("set either the key (" + SettingAPIKey + ") or the file, not both")})
	}
	if _, err := c.apiKey(); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// load builds the TLS configuration, nil when TLS is off.
func (t TLSConfig) load() (*tls.Config, []*SettingError) {
	if !t.On() {
		return nil, nil
	}
	var errs []*SettingError
	cfg := &tls.Config{ServerName: t.ServerName, MinVersion: tls.VersionTLS12}
	if t.CAFile != "" {
		pool, err := loadCA(t.CAFile)
		if err != nil {
			errs = append(errs, &SettingError{SettingTLSCAFile, err})
		}
		cfg.RootCAs = pool
	}
	switch {
	case t.CertFile != "" && t.KeyFile == "":
		errs = append(errs, &SettingError{SettingTLSKeyFile, errors.New("required when " + SettingTLSCertFile + " is set")})
	case t.KeyFile != "" && t.CertFile == "":
		errs = append(errs, &SettingError{SettingTLSCertFile, errors.New("required when " + SettingTLSKeyFile + " is set")})
	case t.CertFile != "":
		cert, err := newRotatingCertificate(t.CertFile, t.KeyFile)
		if err != nil {
			errs = append(errs, &SettingError{SettingTLSCertFile, err})
			break
		}
		cfg.GetClientCertificate = cert.get
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return cfg, nil
}

func loadCA(file string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", file)
	}
	return pool, nil
}

// apiKey is APIKey, or the content of APIKeyFile.
func (c Connection) apiKey() (string, *SettingError) {
	if c.APIKeyFile == "" {
		return c.APIKey.Reveal(), nil
	}
	key, err := ReadSecretFile(c.APIKeyFile)
	if err != nil {
		return "", &SettingError{SettingAPIKeyFile, err}
	}
	return key.Reveal(), nil
}

// Options returns the Temporal client options for this connection; the
// caller adds its logger, interceptors, ...
func (c Connection) Options() (client.Options, error) {
	tlsConfig, errs := c.TLS.load()
	key, err := c.apiKey()
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		joined := make([]error, len(errs))
		for i, e := range errs {
			joined[i] = e
		}
		return client.Options{}, errors.Join(joined...)
	}
	opts := client.Options{
		HostPort:          c.Address,
		Namespace:         c.Namespace,
		ConnectionOptions: client.ConnectionOptions{TLS: tlsConfig},
	}
	switch {
	case c.APIKeyFile != "":
		// Without a TLS configuration the SDK turns TLS on with the system
		// roots for an API key.
		r := &rotatingAPIKey{c: c, current: key}
		opts.Credentials = client.NewAPIKeyDynamicCredentials(r.get)
	case key != "":
		opts.Credentials = client.NewAPIKeyStaticCredentials(key)
	}
	return opts, nil
}

// Dial connects, checking that the frontend answers. base carries the
// caller's other options (logger, metrics, ...); the connection's fields
// override its address, namespace, TLS and credentials.
func (c Connection) Dial(ctx context.Context, base client.Options) (client.Client, error) {
	opts, err := c.Options()
	if err != nil {
		return nil, fmt.Errorf("temporal connection: %w", err)
	}
	base.HostPort, base.Namespace = opts.HostPort, opts.Namespace
	base.ConnectionOptions.TLS, base.Credentials = opts.ConnectionOptions.TLS, opts.Credentials
	tc, err := client.DialContext(ctx, base)
	if err != nil {
		return nil, fmt.Errorf("temporal connection to %s (namespace %q, tls=%v): %w", c.Address, c.Namespace, c.TLS.On(), err)
	}
	return tc, nil
}
