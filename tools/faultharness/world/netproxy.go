package world

import (
	"fmt"
	"net"
	"sync"
	"time"
)

// netProxy is a byte-level TCP proxy on loopback for the faults the
// ZooKeeper-frame-aware proxy (internal/testenv/faults/zkfault) does not make: latency
// spikes and connection resets. It sits in front of one zkfault proxy, so a
// worker's path to a node is netProxy -> zkfault.Proxy -> node.
type netProxy struct {
	Addr     string
	upstream string
	ln       net.Listener

	mu      sync.Mutex
	latency time.Duration
	conns   map[net.Conn]struct{}
}

func startNetProxy(upstream string) (*netProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("net proxy to %s: %w", upstream, err)
	}
	p := &netProxy{Addr: ln.Addr().String(), upstream: upstream, ln: ln, conns: map[net.Conn]struct{}{}}
	go p.accept()
	return p, nil
}

// SetLatency delays every chunk read from now on by d, both ways; order is
// kept. 0 ends the spike.
func (p *netProxy) SetLatency(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.latency = d
}

// CutAll closes every open connection, as a network reset would; new
// connections are accepted at once.
func (p *netProxy) CutAll() int {
	p.mu.Lock()
	conns := make([]net.Conn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
	return len(conns) / 2
}

// Close stops listening and cuts every connection.
func (p *netProxy) Close() {
	_ = p.ln.Close()
	p.CutAll()
}

func (p *netProxy) accept() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.DialTimeout("tcp", p.upstream, 5*time.Second)
		if err != nil {
			_ = client.Close()
			continue
		}
		p.mu.Lock()
		p.conns[client], p.conns[server] = struct{}{}, struct{}{}
		p.mu.Unlock()
		cut := func() {
			_ = client.Close()
			_ = server.Close()
			p.mu.Lock()
			delete(p.conns, client)
			delete(p.conns, server)
			p.mu.Unlock()
		}
		go p.pipe(client, server, cut)
		go p.pipe(server, client, cut)
	}
}

// chunk is bytes read at one time, due for delivery at due.
type chunk struct {
	data []byte
	due  time.Time
}

// pipe copies from src to dst, each chunk held back by the latency in force
// when it was read. A separate writer keeps reading while a chunk waits.
func (p *netProxy) pipe(src, dst net.Conn, cut func()) {
	defer cut()
	queue := make(chan chunk, 1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for c := range queue {
			if wait := time.Until(c.due); wait > 0 {
				time.Sleep(wait)
			}
			if _, err := dst.Write(c.data); err != nil {
				cut()
				for range queue { // drain so the reader never blocks
				}
				return
			}
		}
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			lat := p.latency
			p.mu.Unlock()
			queue <- chunk{data: append([]byte(nil), buf[:n]...), due: time.Now().Add(lat)}
		}
		if err != nil {
			close(queue)
			<-done
			return
		}
	}
}
