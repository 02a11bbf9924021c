package freeport

import (
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPortsAreDistinctAndFree(t *testing.T) {
	for name, pick := range map[string]func(int) ([]int, error){"Ports": Ports, "Low": Low} {
		ports, err := pick(5)
		require.NoError(t, err, name)
		seen := map[int]bool{}
		for _, p := range ports {
			assert.False(t, seen[p], "%s: port %d twice", name, p)
			seen[p] = true
			if name == "Low" {
				assert.Less(t, p, 32768, "%s", name)
			}
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			require.NoError(t, err, "%s: port %d is free", name, p)
			l.Close()
		}
	}
}

func TestLingeringPortCanBeBound(t *testing.T) {
	p, err := Lingering()
	require.NoError(t, err)
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
	require.NoError(t, err, "Go's listeners set SO_REUSEADDR, as the servers do")
	l.Close()
}
