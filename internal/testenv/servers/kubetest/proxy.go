package kubetest

import (
	"bytes"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"
)

// FaultKind is what a Proxy fault does to the request it triggers on.
type FaultKind int

const (
	// DropReply forwards the request, swallows everything the server sends
	// back on that connection and then cuts it: the write is applied and
	// the client never learns it.
	DropReply FaultKind = iota + 1
	// DropRequest swallows the request and cuts the connection: the server
	// never sees it (or sees it truncated), so nothing is applied.
	DropRequest
	// HoldRequest keeps the request (and what follows within holdWindow)
	// until Release, then delivers it on the original server connection,
	// even though the client has given up meanwhile: a zombie write.
	HoldRequest
)

// holdWindow: upstream bytes this soon after a held request belong to it
// (headers and body written separately); later bytes, such as the
// client's TLS close_notify after it gave up, are dropped so that the
// released request is not cancelled by a close behind it.
const holdWindow = 200 * time.Millisecond

// tailKeep bytes of each connection's upstream are kept to find a Match
// that straddles two reads.
const tailKeep = 256

// Fault is a one-shot fault; arm it with Proxy.Arm.
type Fault struct {
	Kind FaultKind
	// Match triggers on the first upstream bytes containing it, for
	// plaintext protocols (a token inside an etcd transaction). At most
	// 256 bytes. Nil triggers on the start of a request instead: upstream
	// bytes that follow downstream bytes (or nothing) on a connection.
	Match []byte
	// Skip lets this many request starts pass first (nil Match only).
	Skip int
	// CutAfter (DropReply): cut the connection this long after the
	// trigger; zero cuts it when the first reply bytes arrive.
	CutAfter time.Duration
}

// Armed is an armed fault.
type Armed struct {
	spec      Fault
	seen      int
	triggered chan struct{}
	replied   chan struct{}
	repOnce   sync.Once
	p         *Proxy
	link      *link
}

// Triggered is closed when the fault has hit a request.
func (a *Armed) Triggered() <-chan struct{} { return a.triggered }

// Replied (HoldRequest) is closed when the server answered the released
// request: proof that it processed the zombie.
func (a *Armed) Replied() <-chan struct{} { return a.replied }

// Disarm removes the fault if it has not triggered yet.
func (a *Armed) Disarm() {
	a.p.mu.Lock()
	defer a.p.mu.Unlock()
	if a.p.armed == a {
		a.p.armed = nil
	}
}

// Release (HoldRequest) delivers the held bytes to the server now.
func (a *Armed) Release() error {
	a.p.mu.Lock()
	l := a.link
	if l == nil || l.hold != a || l.released {
		a.p.mu.Unlock()
		return fmt.Errorf("proxy %s: nothing held", a.p.name)
	}
	held := l.held
	l.held, l.released = nil, true
	a.p.mu.Unlock()
	l.wmu.Lock()
	defer l.wmu.Unlock()
	_, err := l.server.Write(held)
	return err
}

// Proxy is a TCP proxy on loopback that forwards bytes untouched until a
// fault is armed. Safe for concurrent use.
type Proxy struct {
	name   string
	target string
	ln     net.Listener

	mu     sync.Mutex
	links  map[*link]struct{}
	armed  *Armed
	closed bool
}

// NewProxy listens on a free loopback port and forwards to target.
func NewProxy(name, target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("proxy %s: %w", name, err)
	}
	p := &Proxy{name: name, target: target, ln: ln, links: map[*link]struct{}{}}
	go p.accept()
	return p, nil
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Arm arms a one-shot fault, replacing one armed before.
func (p *Proxy) Arm(f Fault) *Armed {
	a := &Armed{spec: f, triggered: make(chan struct{}), replied: make(chan struct{}), p: p}
	p.mu.Lock()
	p.armed = a
	p.mu.Unlock()
	return a
}

// CutAll closes every open connection, as a network reset would.
func (p *Proxy) CutAll() {
	p.mu.Lock()
	links := make([]*link, 0, len(p.links))
	for l := range p.links {
		links = append(links, l)
	}
	p.mu.Unlock()
	for _, l := range links {
		l.close()
	}
}

// Close stops listening and cuts every connection.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	_ = p.ln.Close()
	p.CutAll()
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.serve(c)
	}
}

type link struct {
	p              *Proxy
	client, server net.Conn
	closeOnce      sync.Once
	wmu            sync.Mutex // orders writes to server

	// Guarded by p.mu.
	lastUp     bool
	tail       []byte
	dropDown   bool
	cutOnReply bool
	hold       *Armed
	held       []byte
	heldAt     time.Time
	released   bool
}

func (l *link) close() {
	l.closeOnce.Do(func() {
		_ = l.client.Close()
		_ = l.server.Close()
		l.p.mu.Lock()
		delete(l.p.links, l)
		l.p.mu.Unlock()
	})
}

func (p *Proxy) serve(client net.Conn) {
	server, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		slog.Debug("proxy: dial target", "proxy", p.name, "target", p.target, "err", err)
		_ = client.Close()
		return
	}
	l := &link{p: p, client: client, server: server}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		l.close()
		return
	}
	p.links[l] = struct{}{}
	p.mu.Unlock()
	go l.pumpUp()
	go l.pumpDown()
}

type action int

const (
	forward action = iota
	swallow
	cut
	repliedCut
)

func (l *link) pumpUp() {
	buf := make([]byte, 64<<10)
	for {
		n, err := l.client.Read(buf)
		if n > 0 {
			switch l.p.onUp(l, buf[:n]) {
			case forward:
				l.wmu.Lock()
				_, werr := l.server.Write(buf[:n])
				l.wmu.Unlock()
				if werr != nil {
					l.close()
					return
				}
			case cut:
				l.close()
				return
			}
		}
		if err != nil {
			l.p.mu.Lock()
			holding := l.hold != nil
			l.p.mu.Unlock()
			if !holding {
				l.close()
			}
			// Holding: the client gave up, but the server side stays open
			// for the release and its reply.
			return
		}
	}
}

func (l *link) pumpDown() {
	buf := make([]byte, 64<<10)
	for {
		n, err := l.server.Read(buf)
		if n > 0 {
			switch l.p.onDown(l) {
			case forward:
				if _, werr := l.client.Write(buf[:n]); werr != nil {
					l.p.mu.Lock()
					holding := l.hold != nil
					l.p.mu.Unlock()
					if !holding {
						l.close()
						return
					}
				}
			case cut, repliedCut:
				l.close()
				return
			}
		}
		if err != nil {
			l.close()
			return
		}
	}
}

// onUp decides what happens to upstream bytes.
func (p *Proxy) onUp(l *link, chunk []byte) action {
	p.mu.Lock()
	defer p.mu.Unlock()
	start := !l.lastUp
	l.lastUp = true
	if l.hold != nil && !l.released {
		if time.Since(l.heldAt) < holdWindow {
			l.held = append(l.held, chunk...)
		}
		return swallow
	}
	window := append(l.tail, chunk...)
	if len(window) > tailKeep {
		l.tail = append([]byte(nil), window[len(window)-tailKeep:]...)
	} else {
		l.tail = window
	}
	a := p.armed
	if a == nil || !a.matches(window, start) {
		return forward
	}
	p.armed, a.link = nil, l
	close(a.triggered)
	slog.Debug("proxy: fault triggered", "proxy", p.name, "kind", a.spec.Kind)
	switch a.spec.Kind {
	case DropReply:
		l.dropDown = true
		if a.spec.CutAfter > 0 {
			time.AfterFunc(a.spec.CutAfter, l.close)
		} else {
			l.cutOnReply = true
		}
		return forward
	case DropRequest:
		return cut
	default: // HoldRequest
		l.hold, l.heldAt = a, time.Now()
		l.held = append([]byte(nil), chunk...)
		return swallow
	}
}

func (a *Armed) matches(window []byte, start bool) bool {
	if a.spec.Match != nil {
		return bytes.Contains(window, a.spec.Match)
	}
	if !start {
		return false
	}
	a.seen++
	return a.seen > a.spec.Skip
}

// onDown decides what happens to downstream bytes.
func (p *Proxy) onDown(l *link) action {
	p.mu.Lock()
	defer p.mu.Unlock()
	l.lastUp = false
	switch {
	case l.released:
		l.hold.repOnce.Do(func() { close(l.hold.replied) })
		return repliedCut
	case l.dropDown && l.cutOnReply:
		return cut
	case l.dropDown:
		return swallow
	}
	return forward
}
