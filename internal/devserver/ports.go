package devserver

import (
	"fmt"
	"net"
)

// freePort returns a loopback port nobody listens on. Like the Temporal
// CLI's own picker, it connects to the port and closes the connection from
// the accepting side: that leaves the port in TIME_WAIT, so the kernel does
// not hand it out again to a bind(:0) (another test's server, or the dev
// server picking its own HTTP and metrics ports) for about a minute, while an
// explicit bind with SO_REUSEADDR, which the server does, still succeeds.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer l.Close()
	addr := l.Addr().(*net.TCPAddr)
	c, err := net.DialTCP("tcp", nil, addr)
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer c.Close()
	accepted, err := l.Accept()
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	accepted.Close()
	return addr.Port, nil
}

// pickPorts chooses the frontend port and, with the UI on, the UI port,
// taking the ones fixed in opts as they are.
func pickPorts(opts Options) (ports, error) {
	p := ports{frontend: opts.Port}
	var err error
	if p.frontend == 0 {
		if p.frontend, err = freePort(); err != nil {
			return p, err
		}
	}
	if opts.UI {
		p.ui = opts.UIPort
		if p.ui == 0 {
			if p.ui, err = freePort(); err != nil {
				return p, err
			}
		}
	}
	return p, nil
}
