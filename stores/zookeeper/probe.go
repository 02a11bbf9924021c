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

// sessionStates names the client's states, in the order SessionStates
// lists them; any other state is "other".
var sessionStates = []struct {
	state zk.State
	name  string
}{
	{zk.StateHasSession, "has_session"},
	{zk.StateConnected, "connected"},
	{zk.StateConnecting, "connecting"},
	{zk.StateDisconnected, "disconnected"},
	{zk.StateExpired, "expired"},
	{zk.StateAuthFailed, "auth_failed"},
}

// SessionStates are the names SessionState answers, in a fixed order, so
// that a metric can export each as a series (1 for the current one).
func SessionStates() []string {
	out := make([]string, 0, len(sessionStates)+1)
	for _, s := range sessionStates {
		out = append(out, s.name)
	}
	return append(out, "other")
}

// SessionState names the client's session state, read from memory (no
// call to the ensemble): "has_session" is the only one calls succeed in;
// "connecting" and "disconnected" while the ensemble or the network is
// away; "expired" once the ensemble has dropped the session (the client
// then starts a new one).
func (s *Store) SessionState() string {
	current := s.conn.State()
	for _, st := range sessionStates {
		if st.state == current {
			return st.name
		}
	}
	return "other"
}
