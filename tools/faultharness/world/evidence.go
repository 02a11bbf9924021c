package world

import (
	"bufio"
	"os"
	"strings"
)

// evidence counts, in the ZooKeeper servers' own logs, what the faults did
// on the server side: the report's proof that a session-expiry fault
// expired sessions and a leader kill forced an election, rather than the
// harness's word for it.
func (w *zkWorld) evidence() map[string]int {
	patterns := map[string]string{
		"sessions expired by the ensemble (session-expiry faults, killed workers)": "Expiring session",
		"leaders elected (incl. the first)":                                        "LEADING - LEADER ELECTION TOOK",
	}
	out := map[string]int{}
	for _, n := range w.ensemble.Nodes {
		f, err := os.Open(n.Dir + "/zookeeper.log")
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			for name, p := range patterns {
				if strings.Contains(sc.Text(), p) {
					out[name]++
				}
			}
		}
		_ = f.Close()
	}
	return out
}

// evidence of the Kubernetes side is in the API server's own answers,
// which the workers log; the harness does not count them.
func (w *kubeWorld) evidence() map[string]int { return nil }
