package zktest

import (
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
)

// Ensemble is a replicated ZooKeeper ensemble on loopback: one process per
// node, each with its own client, peer and election ports, data directory
// and log. Nodes can be killed (kill -9) and started again on their data.
type Ensemble struct {
	// Nodes in myid order (Nodes[0] has myid 1).
	Nodes []*Node
	// Dir holds every node's directory.
	Dir string
}

// Node is one member of an Ensemble.
type Node struct {
	// ID is the node's myid, from 1.
	ID int
	// Addr is host:port of the node's client port on loopback.
	Addr string
	// Dir holds the node's configuration, data and log.
	Dir     string
	cfgPath string
	logPath string

	mu      sync.Mutex
	process *proc.Process
}

// nodeStartTimeout covers a JVM start plus a leader election.
const nodeStartTimeout = 60 * time.Second

// StartEnsemble starts an ensemble of n nodes (n odd, at least 3 for a
// quorum that survives one loss) and waits until every node serves.
func StartEnsemble(n int) (*Ensemble, error) {
	if err := Ensure(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "zktest-ensemble-")
	if err != nil {
		return nil, fmt.Errorf("start zookeeper ensemble: %w", err)
	}
	e := &Ensemble{Dir: dir}
	members, err := Configure(dir, n)
	if err != nil {
		e.Cleanup(true)
		return nil, fmt.Errorf("start zookeeper ensemble: %w", err)
	}
	for _, m := range members {
		e.Nodes = append(e.Nodes, &Node{ID: m.ID, Addr: m.Addr, Dir: m.Dir, cfgPath: m.Config(), logPath: m.Log()})
	}
	// Launch all before waiting: a node serves only once a quorum exists.
	for _, node := range e.Nodes {
		if err := node.launch(); err != nil {
			e.Cleanup(true)
			return nil, fmt.Errorf("start zookeeper ensemble: %w", err)
		}
	}
	for _, node := range e.Nodes {
		if err := node.waitServing(nodeStartTimeout); err != nil {
			e.Cleanup(true)
			return nil, fmt.Errorf("start zookeeper ensemble: %w", err)
		}
	}
	return e, nil
}

// Servers are the client addresses of every node, for a client's server list.
func (e *Ensemble) Servers() []string {
	addrs := make([]string, len(e.Nodes))
	for i, n := range e.Nodes {
		addrs[i] = n.Addr
	}
	return addrs
}

// Leader returns the node that answers "Mode: leader" to srvr; an error
// while the ensemble has none (an election is running).
func (e *Ensemble) Leader() (*Node, error) {
	i, err := Leader(e.Servers())
	if err != nil {
		return nil, err
	}
	return e.Nodes[i], nil
}

// WaitServing waits until every node runs and serves within a quorum.
func (e *Ensemble) WaitServing(timeout time.Duration) error {
	for _, n := range e.Nodes {
		if err := n.waitServing(timeout); err != nil {
			return err
		}
	}
	return nil
}

// Stop terminates every node and waits for them.
func (e *Ensemble) Stop() {
	var wg sync.WaitGroup
	for _, n := range e.Nodes {
		wg.Add(1)
		go func() { defer wg.Done(); n.Stop() }()
	}
	wg.Wait()
}

// Cleanup stops the ensemble and removes its directory unless keep is set,
// in which case it prints where the logs are.
func (e *Ensemble) Cleanup(keep bool) {
	e.Stop()
	if keep {
		fmt.Fprintf(os.Stderr, "zktest: kept ZooKeeper ensemble logs and data in %s\n", e.Dir)
		return
	}
	_ = os.RemoveAll(e.Dir)
}

// Mode asks the node for its srvr mode: "leader", "follower" or
// "standalone"; an error when it does not serve.
func (n *Node) Mode() (string, error) {
	mode, err := Mode(n.Addr)
	if err != nil {
		return "", fmt.Errorf("zookeeper node %d: %w", n.ID, err)
	}
	return mode, nil
}

// Running reports whether the node's process is alive.
func (n *Node) Running() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.process != nil && n.process.Running()
}

// Kill sends SIGKILL, a crash without any shutdown, and waits for the exit.
// Killing a stopped node is a no-op.
func (n *Node) Kill() {
	if p := n.take(); p != nil {
		_ = p.Kill()
	}
}

// Stop sends SIGTERM and waits; stopping a stopped node is a no-op.
func (n *Node) Stop() {
	if p := n.take(); p != nil {
		_ = p.Stop(stopGrace)
	}
}

// Pause stops the node's process with SIGSTOP and returns once every
// thread of it has stopped: it answers nobody, its peers' and its clients'
// connections stay open, and what they send waits in its sockets. Resumed,
// it catches up with the leader while it answers its clients again, so for
// a moment it serves reads that lag behind: the follower a store's
// linearizable reads must not trust.
func (n *Node) Pause() error {
	if err := n.signal(syscall.SIGSTOP); err != nil {
		return err
	}
	n.mu.Lock()
	pid := n.process.Pid()
	n.mu.Unlock()
	return waitStopped(pid, 5*time.Second)
}

// Resume continues a paused node (SIGCONT).
func (n *Node) Resume() error { return n.signal(syscall.SIGCONT) }

func (n *Node) signal(sig syscall.Signal) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.process == nil || !n.process.Running() {
		return fmt.Errorf("zookeeper node %d is stopped", n.ID)
	}
	if err := n.process.Signal(sig); err != nil {
		return fmt.Errorf("zookeeper node %d: %s: %w", n.ID, sig, err)
	}
	return nil
}

// Start starts a stopped node again on its data and waits until it serves
// within a quorum. Starting a running node is a no-op.
func (n *Node) Start() error {
	if n.Running() {
		return nil
	}
	if err := n.launch(); err != nil {
		return err
	}
	return n.waitServing(nodeStartTimeout)
}

func (n *Node) launch() error {
	p, err := launch(n.cfgPath, n.logPath)
	if err != nil {
		return fmt.Errorf("zookeeper node %d: %w", n.ID, err)
	}
	n.mu.Lock()
	n.process = p
	n.mu.Unlock()
	return nil
}

func (n *Node) waitServing(timeout time.Duration) error {
	n.mu.Lock()
	p := n.process
	n.mu.Unlock()
	if p == nil {
		return fmt.Errorf("zookeeper node %d is stopped", n.ID)
	}
	if err := WaitServing(n.Addr, p.Running, timeout); err != nil {
		return fmt.Errorf("zookeeper node %d (log %s): %w", n.ID, n.logPath, err)
	}
	return nil
}

// take detaches the current process, so that Kill and Stop from different
// goroutines never signal one process twice.
func (n *Node) take() *proc.Process {
	n.mu.Lock()
	defer n.mu.Unlock()
	p := n.process
	n.process = nil
	return p
}
