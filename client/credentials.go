package client

import (
	"context"
	"crypto/tls"
	"os"
	"sync"
)

// The client certificate and the API key are read again from their files
// when the files change, so that a rotation (Temporal Cloud's short-lived
// certificates, an API key replaced in a Kubernetes Secret) takes effect
// without a restart: the certificate on the next connection the client
// dials, the key on the next call. A pair or key that cannot be read (a
// rotation half written) leaves the last good one in use; the files are
// checked at start (Connection.Check), so there always is one.

// fileStamp tells whether a file changed since it was last read: another
// file renamed over it (the way secrets are rotated), or new content.
type fileStamp struct{ fi os.FileInfo }

func stampOf(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	return fileStamp{fi}, err
}

func (s fileStamp) same(o fileStamp) bool {
	return s.fi != nil && o.fi != nil && os.SameFile(s.fi, o.fi) &&
		s.fi.ModTime().Equal(o.fi.ModTime()) && s.fi.Size() == o.fi.Size()
}

// rotatingCertificate is a client certificate read from its files.
type rotatingCertificate struct {
	certFile, keyFile string

	mu        sync.Mutex
	cert, key fileStamp
	current   *tls.Certificate
}

func newRotatingCertificate(certFile, keyFile string) (*rotatingCertificate, error) {
	r := &rotatingCertificate{certFile: certFile, keyFile: keyFile}
	if err := r.reload(); err != nil {
		return nil, err
	}
	return r, nil
}

// reload reads the pair if either file changed.
func (r *rotatingCertificate) reload() error {
	cert, err := stampOf(r.certFile)
	if err != nil {
		return err
	}
	key, err := stampOf(r.keyFile)
	if err != nil {
		return err
	}
	if r.current != nil && cert.same(r.cert) && key.same(r.key) {
		return nil
	}
	pair, err := tls.LoadX509KeyPair(r.certFile, r.keyFile)
	if err != nil {
		return err
	}
	r.current, r.cert, r.key = &pair, cert, key
	return nil
}

// get is tls.Config.GetClientCertificate: called once per handshake.
func (r *rotatingCertificate) get(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	_ = r.reload() // the last good pair until the files are whole again
	return r.current, nil
}

// rotatingAPIKey is an API key read from its file.
type rotatingAPIKey struct {
	c Connection

	mu      sync.Mutex
	stamp   fileStamp
	current string
}

// get is the SDK's dynamic API key callback: called for every request, so
// the file is read again only when it changed.
func (r *rotatingAPIKey) get(context.Context) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	stamp, err := stampOf(r.c.APIKeyFile)
	if err != nil || stamp.same(r.stamp) {
		return r.current, nil
	}
	if key, err := r.c.apiKey(); err == nil {
		r.current, r.stamp = key, stamp
	}
	return r.current, nil
}
