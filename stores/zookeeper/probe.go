package zookeeper

import (
	"context"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// Probe reports whether the store can serve calls now: its session is
// connected. While the client reconnects (the ensemble or the network is
// away) every call would answer Unknown.
func (s *Store) Probe(context.Context) error {
	if st := s.conn.State(); st != zk.StateHasSession {
		return fmt.Errorf("zookeeper session %s (servers %v)", st, s.servers)
	}
	return nil
}
