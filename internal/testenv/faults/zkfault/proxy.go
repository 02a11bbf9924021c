// Package zkfault is a ZooKeeper-aware TCP fault proxy for tests. It reads
// the protocol's length-prefixed frames, so a fault can hit exactly one
// write: drop a multi-op request before the server sees it, or let it
// through and cut the connection before its reply reaches the client (the
// ambiguous write of FLINK-22494). A byte-level proxy such as toxiproxy
// cannot tie a reply to the request that caused it: the reads a store makes
// before its write would take the fault instead.
package zkfault

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
)

// Fault is what the proxy does to traffic.
type Fault int

const (
	// None forwards everything.
	None Fault = iota
	// DropWriteRequest cuts the connection instead of forwarding the next
	// multi-op request: the write never happens.
	DropWriteRequest
	// DropWriteReply forwards the next multi-op request and cuts the
	// connection when its reply comes back: the write happened, the client
	// cannot know.
	DropWriteReply
	// Partition silently discards every frame both ways until Heal.
	Partition
	// HoldWriteRequest holds the next multi-op request back until Release,
	// then forwards it: whatever other clients write meanwhile lands
	// between the reads a call made and its compare-and-set.
	HoldWriteRequest
)

const opMulti = 14

// Proxy forwards one listen address to a ZooKeeper server.
type Proxy struct {
	Addr     string
	upstream string
	ln       net.Listener

	mu      sync.Mutex
	fault   Fault
	fired   chan struct{}
	release chan struct{}
	conns   map[net.Conn]struct{}
}

// Start listens on a free loopback port.
func Start(upstream string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("zkfault: %w", err)
	}
	p := &Proxy{Addr: ln.Addr().String(), upstream: upstream, ln: ln, conns: map[net.Conn]struct{}{}}
	go p.accept()
	return p, nil
}

// Inject arms a fault. DropWriteRequest, DropWriteReply and
// HoldWriteRequest act once; the returned channel closes when they have
// acted (for a hold: when the request is held).
func (p *Proxy) Inject(f Fault) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fault, p.fired = f, make(chan struct{})
	if f == HoldWriteRequest {
		p.release = make(chan struct{})
	}
	return p.fired
}

// Release forwards the request HoldWriteRequest holds.
func (p *Proxy) Release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.release != nil {
		close(p.release)
		p.release = nil
	}
}

func (p *Proxy) held() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.release == nil {
		return closed
	}
	return p.release
}

var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Heal disarms any fault.
func (p *Proxy) Heal() { p.Inject(None) }

// Close stops listening and cuts every connection.
func (p *Proxy) Close() {
	p.Release()
	_ = p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
	}
}

func (p *Proxy) accept() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", p.upstream)
		if err != nil {
			_ = client.Close()
			continue
		}
		p.mu.Lock()
		p.conns[client], p.conns[server] = struct{}{}, struct{}{}
		p.mu.Unlock()
		s := &session{p: p, client: client, server: server}
		go s.requests()
		go s.replies()
	}
}

// session is one proxied connection.
type session struct {
	p              *Proxy
	client, server net.Conn

	mu        sync.Mutex
	dropReply map[int32]bool
}

func (s *session) cut() {
	_ = s.client.Close()
	_ = s.server.Close()
	s.p.mu.Lock()
	delete(s.p.conns, s.client)
	delete(s.p.conns, s.server)
	s.p.mu.Unlock()
}

// take consumes the armed fault if it applies to a frame of kind multi.
func (p *Proxy) take(multi bool) Fault {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch f := p.fault; {
	case f == Partition:
		return f
	case f != None && multi:
		p.fault = None
		close(p.fired)
		return f
	}
	return None
}

func (s *session) requests() {
	defer s.cut()
	for first := true; ; first = false {
		frame, err := readFrame(s.client)
		if err != nil {
			return
		}
		// The first frame is the connect request, without a request header.
		multi := !first && len(frame) >= 8 && int32(binary.BigEndian.Uint32(frame[4:8])) == opMulti
		switch s.p.take(multi) {
		case Partition:
			continue
		case DropWriteRequest:
			return
		case HoldWriteRequest:
			<-s.p.held()
		case DropWriteReply:
			s.mu.Lock()
			if s.dropReply == nil {
				s.dropReply = map[int32]bool{}
			}
			s.dropReply[int32(binary.BigEndian.Uint32(frame[0:4]))] = true
			s.mu.Unlock()
		}
		if err := writeFrame(s.server, frame); err != nil {
			return
		}
	}
}

func (s *session) replies() {
	defer s.cut()
	for first := true; ; first = false {
		frame, err := readFrame(s.server)
		if err != nil {
			return
		}
		if s.p.take(false) == Partition {
			continue
		}
		if !first && len(frame) >= 4 {
			s.mu.Lock()
			drop := s.dropReply[int32(binary.BigEndian.Uint32(frame[0:4]))]
			s.mu.Unlock()
			if drop {
				return
			}
		}
		if err := writeFrame(s.client, frame); err != nil {
			return
		}
	}
}

const maxFrame = 16 << 20

func readFrame(r io.Reader) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size > maxFrame {
		return nil, errors.New("zkfault: frame too large")
	}
	frame := make([]byte, size)
	_, err := io.ReadFull(r, frame)
	return frame, err
}

func writeFrame(w io.Writer, frame []byte) error {
	b := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(frame)), uint32(len(frame)))
	_, err := w.Write(append(b, frame...))
	return err
}
