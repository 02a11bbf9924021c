package topology

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/freeport"
	"github.com/checkpoint-finalizer/finalizer/internal/zktest"
)

// ZKNode is one member of the ZooKeeper ensemble (Debian's zookeeper
// package, QuorumPeerMain as internal/zktest runs it).
type ZKNode struct {
	ID      int     `json:"id"`
	Addr    string  `json:"addr"`
	Dir     string  `json:"dir"`
	Process process `json:"process"`
	// PeerPorts are the quorum and election ports.
	PeerPorts []int `json:"peerPorts"`
}

const (
	zkJar        = "/usr/share/java/zookeeper.jar"
	zkLoggingJar = "/usr/share/java/slf4j-simple.jar"
)

// setupZooKeeper writes the configuration of an n-node ensemble, every
// port on loopback.
func (tp *Topology) setupZooKeeper(n int) error {
	if err := zktest.Ensure(); err != nil {
		return err
	}
	ports, err := freeport.Ports(3 * n)
	if err != nil {
		return err
	}
	var peers strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&peers, "server.%d=127.0.0.1:%d:%d\n", i+1, ports[3*i+1], ports[3*i+2])
	}
	tp.ZooKeeper = nil
	for i := 0; i < n; i++ {
		id := i + 1
		dir := filepath.Join(tp.Dir, "zookeeper", "node-"+strconv.Itoa(id))
		data := filepath.Join(dir, "data")
		if err := os.MkdirAll(data, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(data, "myid"), []byte(strconv.Itoa(id)+"\n"), 0o644); err != nil {
			return err
		}
		// tickTime 500 ms: elections and session expiry within seconds.
		cfg := fmt.Sprintf("tickTime=500\ninitLimit=10\nsyncLimit=5\ndataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\n"+
			"maxClientCnxns=0\nminSessionTimeout=1000\nmaxSessionTimeout=60000\n%s", data, ports[3*i], peers.String())
		cfgPath := filepath.Join(dir, "zoo.cfg")
		if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
			return err
		}
		tp.ZooKeeper = append(tp.ZooKeeper, ZKNode{
			ID: id, Addr: fmt.Sprintf("127.0.0.1:%d", ports[3*i]), Dir: dir, PeerPorts: []int{ports[3*i+1], ports[3*i+2]},
			Process: process{
				Name: "zookeeper-" + strconv.Itoa(id),
				Args: []string{"java", "-Xms32m", "-Xmx256m", "-XX:+UseSerialGC",
					"-Dzookeeper.admin.enableServer=false", "-Dzookeeper.4lw.commands.whitelist=*",
					"-cp", zkJar + ":" + zkLoggingJar, "org.apache.zookeeper.server.quorum.QuorumPeerMain", cfgPath},
				Log:     filepath.Join(dir, "zookeeper.log"),
				PIDFile: filepath.Join(dir, "zookeeper.pid"),
				Marker:  cfgPath,
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
	out, err := zktest.FourLetter(n.Addr, "srvr")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(out, "\n") {
		if mode, ok := strings.CutPrefix(line, "Mode: "); ok {
			return strings.TrimSpace(mode), nil
		}
	}
	return "", fmt.Errorf("zookeeper node %d does not serve", n.ID)
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
	deadline := time.Now().Add(timeout)
	for {
		_, err := n.Mode()
		if err == nil {
			return nil
		}
		if n.Process.pid() == 0 {
			return fmt.Errorf("zookeeper node %d exited (log %s)", n.ID, n.Process.Log)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("zookeeper node %d not serving after %s (log %s): %v", n.ID, timeout, n.Process.Log, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ZooKeeperLeader is the node that answers "Mode: leader".
func (tp *Topology) ZooKeeperLeader() (*ZKNode, error) {
	for i := range tp.ZooKeeper {
		if mode, err := tp.ZooKeeper[i].Mode(); err == nil && mode == "leader" {
			return &tp.ZooKeeper[i], nil
		}
	}
	return nil, fmt.Errorf("zookeeper ensemble has no leader")
}

// PID is the node's process ID, 0 when it does not run.
func (n *ZKNode) PID() int { return n.Process.pid() }

// KillZooKeeperNode kills node id (from 1) with SIGKILL; a node that does
// not run is an error.
func (tp *Topology) KillZooKeeperNode(id int) error { return tp.ZooKeeper[id-1].Process.kill() }
