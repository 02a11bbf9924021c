package zktest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/freeport"
)

// Member is one ensemble member as Configure wrote it: the one place that
// knows ZooKeeper's files, for this package's Ensemble and for tools that
// run the nodes their own way (tools/topology, detached).
type Member struct {
	// ID is the node's myid, from 1.
	ID int
	// Addr is host:port of the node's client port on loopback.
	Addr string
	// PeerPorts are the quorum and election ports.
	PeerPorts [2]int
	// Dir holds the node's zoo.cfg, its data directory (which persists
	// across the node's lives) and its log.
	Dir string
}

// Config is the path of the member's zoo.cfg.
func (m Member) Config() string { return filepath.Join(m.Dir, "zoo.cfg") }

// Log is the path of the member's log, appended to across its lives.
func (m Member) Log() string { return filepath.Join(m.Dir, "zookeeper.log") }

// Configure writes the configuration of an n-node ensemble under root,
// node-<id>/zoo.cfg and node-<id>/data/myid for each member, every port a
// free one on loopback.
func Configure(root string, n int) ([]Member, error) {
	if n < 1 {
		return nil, fmt.Errorf("configure zookeeper ensemble: %d nodes", n)
	}
	// Every port first: each member's configuration lists all peers.
	ports, err := freeport.Ports(3 * n)
	if err != nil {
		return nil, fmt.Errorf("configure zookeeper ensemble: %w", err)
	}
	members := make([]Member, n)
	var peers strings.Builder
	for i := range members {
		members[i] = Member{
			ID: i + 1, Addr: fmt.Sprintf("127.0.0.1:%d", ports[3*i]), PeerPorts: [2]int{ports[3*i+1], ports[3*i+2]},
			Dir: filepath.Join(root, "node-"+strconv.Itoa(i+1)),
		}
		fmt.Fprintf(&peers, "server.%d=127.0.0.1:%d:%d\n", i+1, ports[3*i+1], ports[3*i+2])
	}
	for _, m := range members {
		data := filepath.Join(m.Dir, "data")
		if err := os.MkdirAll(data, 0o755); err != nil {
			return nil, fmt.Errorf("configure zookeeper node %d: %w", m.ID, err)
		}
		if err := os.WriteFile(filepath.Join(data, "myid"), []byte(strconv.Itoa(m.ID)+"\n"), 0o644); err != nil {
			return nil, fmt.Errorf("configure zookeeper node %d: %w", m.ID, err)
		}
		if err := writeConfig(m.Config(), data, ports[3*(m.ID-1)], peers.String()); err != nil {
			return nil, fmt.Errorf("configure zookeeper node %d: %w", m.ID, err)
		}
	}
	return members, nil
}

// writeConfig writes a zoo.cfg serving clients on clientPort, a member of
// the ensemble peers lists (server.<id> lines) or, with none, standalone.
// tickTime 500 ms keeps elections and session expiry quick; the limits
// (in ticks) give a follower 5 s to sync and 2.5 s of silence.
func writeConfig(path, data string, clientPort int, peers string) error {
	cfg := fmt.Sprintf("tickTime=500\ninitLimit=10\nsyncLimit=5\ndataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\n"+
		"maxClientCnxns=0\nminSessionTimeout=1000\nmaxSessionTimeout=60000\n%s", data, clientPort, peers)
	return os.WriteFile(path, []byte(cfg), 0o644)
}

// Command is the command line that runs a node on its zoo.cfg: the Debian
// package's QuorumPeerMain, standalone or a member as the file says.
func Command(cfgPath string) []string {
	return []string{"java", "-Xms32m", "-Xmx256m", "-XX:+UseSerialGC",
		"-Dzookeeper.admin.enableServer=false", "-Dzookeeper.4lw.commands.whitelist=*",
		"-cp", jar + ":" + loggingJar, "org.apache.zookeeper.server.quorum.QuorumPeerMain", cfgPath}
}
