package netfault_test

import (
	"bufio"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/faults/netfault"
)

// echo serves lines back on a loopback port.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if _, err := c.Write([]byte(line)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// roundTrip sends a line and waits up to wait for it to come back.
func roundTrip(c net.Conn, r *bufio.Reader, wait time.Duration) error {
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return err
	}
	_ = c.SetReadDeadline(time.Now().Add(wait))
	_, err := r.ReadString('\n')
	return err
}

func TestPartitionBlackHolesOldAndNewConnectionsUntilHeal(t *testing.T) {
	p, err := netfault.Start(echo(t))
	require.NoError(t, err)
	t.Cleanup(p.Close)

	old, err := net.Dial("tcp", p.Addr)
	require.NoError(t, err)
	defer old.Close()
	oldR := bufio.NewReader(old)
	require.NoError(t, roundTrip(old, oldR, 5*time.Second), "forwarded before the partition")

	p.Partition()
	require.Error(t, roundTrip(old, oldR, 300*time.Millisecond), "an open connection is black-holed")
	fresh, err := net.Dial("tcp", p.Addr)
	require.NoError(t, err, "a black hole accepts")
	defer fresh.Close()
	require.Error(t, roundTrip(fresh, bufio.NewReader(fresh), 300*time.Millisecond), "a new connection is black-holed")

	p.Heal()
	_ = old.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = oldR.ReadString('\n')
	require.Error(t, err, "heal cuts what the partition held")
	again, err := net.Dial("tcp", p.Addr)
	require.NoError(t, err)
	defer again.Close()
	require.NoError(t, roundTrip(again, bufio.NewReader(again), 5*time.Second), "forwarded after heal")
}
