package kubetest

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lineServer answers each line with "ok <line>" and records what it got.
func lineServer(t *testing.T) (addr string, got chan string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	got = make(chan string, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					got <- sc.Text()
					if _, err := io.WriteString(c, "ok "+sc.Text()+"\n"); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String(), got
}

func roundTrip(t *testing.T, c net.Conn, r *bufio.Reader, line string) (string, error) {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := io.WriteString(c, line+"\n"); err != nil {
		return "", err
	}
	s, err := r.ReadString('\n')
	return strings.TrimSpace(s), err
}

func dialProxy(t *testing.T, target string) (*Proxy, net.Conn, *bufio.Reader) {
	p, err := NewProxy("test", target)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return p, c, bufio.NewReader(c)
}

func TestProxyForwards(t *testing.T) {
	addr, got := lineServer(t)
	_, c, r := dialProxy(t, addr)
	reply, err := roundTrip(t, c, r, "hello")
	require.NoError(t, err)
	assert.Equal(t, "ok hello", reply)
	assert.Equal(t, "hello", <-got)
}

func TestProxyDropReplyAppliesButNeverAnswers(t *testing.T) {
	addr, got := lineServer(t)
	p, c, r := dialProxy(t, addr)
	_, err := roundTrip(t, c, r, "first")
	require.NoError(t, err)
	<-got
	a := p.Arm(Fault{Kind: DropReply, Skip: 1})
	_, err = roundTrip(t, c, r, "skipped")
	require.NoError(t, err)
	<-got
	_, err = roundTrip(t, c, r, "write")
	assert.Error(t, err, "the reply is swallowed and the connection cut")
	assert.Equal(t, "write", <-got, "the server got the request")
	<-a.Triggered()
}

func TestProxyDropRequestNeverArrives(t *testing.T) {
	addr, got := lineServer(t)
	p, c, r := dialProxy(t, addr)
	a := p.Arm(Fault{Kind: DropRequest, Match: []byte("secret")})
	_, err := roundTrip(t, c, r, "harmless")
	require.NoError(t, err)
	<-got
	_, err = roundTrip(t, c, r, "the secret write")
	assert.Error(t, err)
	<-a.Triggered()
	select {
	case s := <-got:
		t.Fatalf("server received %q", s)
	case <-time.After(200 * time.Millisecond):
	}
}

func TestProxyHoldRequestDeliversAfterClientLeft(t *testing.T) {
	addr, got := lineServer(t)
	p, c, r := dialProxy(t, addr)
	a := p.Arm(Fault{Kind: HoldRequest})
	_, err := roundTrip(t, c, r, "zombie")
	assert.Error(t, err, "the client times out")
	c.Close()
	time.Sleep(holdWindow + 50*time.Millisecond)
	select {
	case s := <-got:
		t.Fatalf("server received %q before the release", s)
	default:
	}
	require.NoError(t, a.Release())
	assert.Equal(t, "zombie", <-got)
	select {
	case <-a.Replied():
	case <-time.After(2 * time.Second):
		t.Fatal("no reply observed")
	}
}
