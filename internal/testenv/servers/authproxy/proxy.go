// Package authproxy is a Temporal frontend that checks API keys, for
// tests: a TLS gRPC proxy in front of a plaintext Temporal server (the dev
// server, which checks no key) that lets a call through only when its
// "authorization" header is "Bearer <key>" for a key it accepts now, as
// Temporal Cloud does. The accepted keys change while it runs: a key
// rotation, the old key revoked.
package authproxy

import (
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"
)

// ErrNoKeys is returned by Start without any key to accept.
var ErrNoKeys = errors.New("authproxy: no key to accept")

// Proxy is a running proxy.
type Proxy struct {
	// Addr is its address, 127.0.0.1:port; it speaks TLS with the
	// certificate it was started with.
	Addr string
	srv  *http.Server

	mu       sync.Mutex
	accepted map[string]bool
	// calls counts the calls let through by key, refused the others.
	calls   map[string]int
	refused int
}

// Start serves on a free loopback port with the certificate (and its key)
// given, forwarding to the plaintext gRPC server at backend.
func Start(backend, certFile, keyFile string, keys ...string) (*Proxy, error) {
	if len(keys) == 0 {
		return nil, ErrNoKeys
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{Addr: ln.Addr().String(), calls: map[string]int{}}
	p.Accept(keys...)
	// gRPC is HTTP/2 without TLS towards the backend (h2c).
	protocols := new(http.Protocols)
	protocols.SetUnencryptedHTTP2(true)
	forward := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(&url.URL{Scheme: "http", Host: backend})
			r.Out.Host = r.In.Host
		},
		Transport: &http.Transport{Protocols: protocols},
		// Long polls and streamed replies pass as they come.
		FlushInterval: -1,
	}
	p.srv = &http.Server{
		Handler:           p.check(forward),
		ReadHeaderTimeout: 10 * time.Second,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"h2"}},
	}
	go func() { _ = p.srv.ServeTLS(ln, "", "") }()
	return p, nil
}

// Accept replaces the keys accepted from now on; calls under way go on.
func (p *Proxy) Accept(keys ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.accepted = map[string]bool{}
	for _, k := range keys {
		p.accepted[k] = true
	}
}

// Calls is how many calls were let through with the key.
func (p *Proxy) Calls(key string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[key]
}

// Refused is how many calls were refused.
func (p *Proxy) Refused() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refused
}

// Close stops serving and ends the connections.
func (p *Proxy) Close() { _ = p.srv.Close() }

// check answers a call without an accepted key with gRPC's
// UNAUTHENTICATED (a trailers-only reply), as a frontend that checks API
// keys does.
func (p *Proxy) check(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, bearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		p.mu.Lock()
		ok := bearer && p.accepted[key]
		if ok {
			p.calls[key]++
		} else {
			p.refused++
		}
		p.mu.Unlock()
		if !ok {
			w.Header().Set("Content-Type", "application/grpc")
			w.Header().Set("Grpc-Status", "16") // UNAUTHENTICATED
			w.Header().Set("Grpc-Message", "authproxy: API key not accepted")
			w.WriteHeader(http.StatusOK)
			return
		}
		next.ServeHTTP(w, r)
	})
}
