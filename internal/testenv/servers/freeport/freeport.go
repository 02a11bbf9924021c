// Package freeport picks the loopback ports of the servers the harnesses
// and tools start: one picker, so that each kind of port is chosen the
// same way everywhere. A port is free when picked; another process may
// take it before the server binds it, and the caller retries the start
// then.
package freeport

import (
	"fmt"
	"math/rand/v2"
	"net"
)

// Ports returns n distinct free loopback ports, listened on together
// while they are picked so that no two are the same.
func Ports(n int) ([]int, error) {
	return hold(n, func() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") })
}

// Port returns one free loopback port.
func Port() (int, error) {
	p, err := Ports(1)
	if err != nil {
		return 0, err
	}
	return p[0], nil
}

// Addr returns a free loopback address, 127.0.0.1:<port>.
func Addr() (string, error) {
	p, err := Port()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("127.0.0.1:%d", p), nil
}

// Low returns n distinct free loopback ports below 32768: the Temporal
// server keeps its membership ports in a PostgreSQL smallint column, and
// below the ephemeral range the kernel never hands the port to an
// outgoing connection before the server binds it.
func Low(n int) ([]int, error) {
	next := 20000 + rand.IntN(10000)
	return hold(n, func() (net.Listener, error) {
		for ; next < 32768; next++ {
			if l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", next)); err == nil {
				next++
				return l, nil
			}
		}
		return nil, fmt.Errorf("no free port below 32768")
	})
}

// Lingering returns a free loopback port left in TIME_WAIT, as the
// Temporal CLI's own picker does: connected to and closed from the
// accepting side, so the kernel does not hand it out again to a bind(:0)
// (another server picking its own ports) for about a minute, while an
// explicit bind with SO_REUSEADDR, which the server does, still succeeds.
func Lingering() (int, error) {
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

// hold picks n ports with listen, keeping each listener open until all
// are picked.
func hold(n int, listen func() (net.Listener, error)) ([]int, error) {
	ls := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for i := range n {
		l, err := listen()
		if err != nil {
			return nil, fmt.Errorf("free port %d of %d: %w", i+1, n, err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
