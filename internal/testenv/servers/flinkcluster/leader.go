package flinkcluster

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
)

// restLeaderAddress finds the leading REST endpoint's URL in what Flink
// keeps in ZooKeeper: a Java-serialized (address, session ID) pair.
var restLeaderAddress = regexp.MustCompile(`http://[0-9.]+:([0-9]+)`)

// Leader is the JobManager that leads now, as Flink's leader retrieval
// sees it: the one whose REST endpoint ZooKeeper names as the leader's
// (the leadership of the Dispatcher, the ResourceManager and the REST
// endpoint goes together, through one leader election per process).
func (c *Cluster) Leader(ctx context.Context) (*JobManager, error) {
	quorum := strings.Split(c.config["high-availability.zookeeper.quorum"], ",")
	conn, _, err := zk.Connect(quorum, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		return nil, fmt.Errorf("flink leader: %w", err)
	}
	defer conn.Close()
	root := c.config["high-availability.zookeeper.path.root"]
	if root == "" {
		root = "/flink"
	}
	node := path.Join(root, c.config["high-availability.cluster-id"], "leader", "rest_server", "connection_info")
	type result struct {
		data []byte
		err  error
	}
	got := make(chan result, 1)
	go func() {
		data, _, err := conn.Get(node)
		got <- result{data, err}
	}()
	var r result
	select {
	case r = <-got:
	case <-ctx.Done():
		return nil, fmt.Errorf("flink leader: %w", ctx.Err())
	}
	if r.err != nil {
		return nil, fmt.Errorf("flink leader: %s: %w", node, r.err)
	}
	m := restLeaderAddress.FindSubmatch(r.data)
	if m == nil {
		return nil, fmt.Errorf("flink leader: no leader in %s", node)
	}
	for _, jm := range c.JobManagers {
		if fmt.Sprint(jm.RESTPort) == string(m[1]) {
			return jm, nil
		}
	}
	return nil, fmt.Errorf("flink leader: %s names port %s, none of the cluster's", node, m[1])
}
