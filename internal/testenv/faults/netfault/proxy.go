// Package netfault is a byte-level TCP fault proxy for tests of any
// protocol (gRPC to Temporal, for one): it forwards a loopback port to an
// upstream address, and a partition black-holes every connection, old and
// new, until Heal. A black hole, not a refusal, is what a client meets when
// a network or a server goes away: its calls hang until their own deadlines,
// which is what a caller's bounds must be tested against. Heal cuts the
// black-holed connections, so that clients reconnect to a working path.
package netfault

import (
	"fmt"
	"io"
	"net"
	"sync"
)

// Proxy forwards Addr to an upstream address.
type Proxy struct {
	Addr     string
	upstream string
	ln       net.Listener

	mu          sync.Mutex
	partitioned bool
	conns       map[net.Conn]struct{}
}

// Start listens on a free loopback port.
func Start(upstream string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("netfault: %w", err)
	}
	p := &Proxy{Addr: ln.Addr().String(), upstream: upstream, ln: ln, conns: map[net.Conn]struct{}{}}
	go p.accept()
	return p, nil
}

// Partition black-holes every connection, open or new, until Heal.
func (p *Proxy) Partition() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.partitioned = true
}

// Heal ends a partition: the connections it black-holed are cut, new ones
// are forwarded again.
func (p *Proxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.partitioned {
		p.partitioned = false
		p.cutLocked()
	}
}

// Close stops listening and cuts every connection.
func (p *Proxy) Close() {
	_ = p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cutLocked()
}

func (p *Proxy) cutLocked() {
	for c := range p.conns {
		_ = c.Close()
		delete(p.conns, c)
	}
}

func (p *Proxy) accept() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.conns[client] = struct{}{}
		p.mu.Unlock()
		go p.serve(client)
	}
}

// serve forwards one connection, dialing upstream only while no partition
// stands (a connection opened during one stays black-holed until Heal).
func (p *Proxy) serve(client net.Conn) {
	if p.isPartitioned() {
		_, _ = io.Copy(io.Discard, client)
		return
	}
	server, err := net.Dial("tcp", p.upstream)
	if err != nil {
		_ = client.Close()
		return
	}
	p.mu.Lock()
	p.conns[server] = struct{}{}
	p.mu.Unlock()
	go p.pipe(server, client)
	p.pipe(client, server)
}

// pipe copies from one side to the other, discarding what a partition
// catches in flight.
func (p *Proxy) pipe(from, to net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := from.Read(buf)
		if n > 0 && !p.isPartitioned() {
			if _, werr := to.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			_ = to.Close()
			return
		}
	}
}

func (p *Proxy) isPartitioned() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.partitioned
}
