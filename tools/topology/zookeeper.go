package topology

import (
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/zktest"
)

// ZKNode is one member of the ZooKeeper ensemble (Debian's zookeeper
// package, QuorumPeerMain as internal/testenv/servers/zktest runs it).
type ZKNode struct {
	ID      int     `json:"id"`
	Addr    string  `json:"addr"`
	Dir     string  `json:"dir"`
	Process process `json:"process"`
	// PeerPorts are the quorum and election ports.
	PeerPorts []int `json:"peerPorts"`
}

// setupZooKeeper writes the configuration of an n-node ensemble under the
// topology's directory (internal/testenv/servers/zktest's, every port on loopback).
func (tp *Topology) setupZooKeeper(n int) error {
	if err := zktest.Ensure(); err != nil {
		return err
	}
	members, err := zktest.Configure(filepath.Join(tp.Dir, "zookeeper"), n)
	if err != nil {
		return err
	}
	tp.ZooKeeper = nil
	for _, m := range members {
		tp.ZooKeeper = append(tp.ZooKeeper, ZKNode{
			ID: m.ID, Addr: m.Addr, Dir: m.Dir, PeerPorts: m.PeerPorts[:],
			Process: process{
				Name:    "zookeeper-" + strconv.Itoa(m.ID),
				Args:    zktest.Command(m.Config()),
				Log:     m.Log(),
				PIDFile: filepath.Join(m.Dir, "zookeeper.pid"),
				Marker:  m.Config(),
			},
		})
	}
	return nil
}

// ZooKeeperServers is the ensemble's client address list.
func (tp *Topology) ZooKeeperServers() []string {
	addrs := make([]string, len(tp.ZooKeeper))
	for i, n := range tp.ZooKeeper {
		addrs[i] = n.Addr
	}
	return addrs
}

// Mode is the node's srvr answer: "leader", "follower", or an error
// while it does not serve.
func (n *ZKNode) Mode() (string, error) {
	mode, err := zktest.Mode(n.Addr)
	if err != nil {
		return "", fmt.Errorf("zookeeper node %d: %w", n.ID, err)
	}
	return mode, nil
}

// StartZooKeeper starts every stopped node and waits until all serve
// within a quorum.
func (tp *Topology) StartZooKeeper() error {
	for i := range tp.ZooKeeper {
		if err := tp.ZooKeeper[i].Process.start(); err != nil {
			return err
		}
	}
	for i := range tp.ZooKeeper {
		if err := tp.ZooKeeper[i].waitServing(90 * time.Second); err != nil {
			return err
		}
	}
	return nil
}

func (n *ZKNode) waitServing(timeout time.Duration) error {
	running := func() bool { return n.Process.pid() != 0 }
	if err := zktest.WaitServing(n.Addr, running, timeout); err != nil {
		return fmt.Errorf("zookeeper node %d (log %s): %w", n.ID, n.Process.Log, err)
	}
	return nil
}

// ZooKeeperLeader is the node that answers "Mode: leader".
func (tp *Topology) ZooKeeperLeader() (*ZKNode, error) {
	i, err := zktest.Leader(tp.ZooKeeperServers())
	if err != nil {
		return nil, err
	}
	return &tp.ZooKeeper[i], nil
}

// PID is the node's process ID, 0 when it does not run.
func (n *ZKNode) PID() int { return n.Process.pid() }

// KillZooKeeperNode kills node id (from 1) with SIGKILL; a node that does
// not run is an error.
func (tp *Topology) KillZooKeeperNode(id int) error { return tp.ZooKeeper[id-1].Process.kill() }
