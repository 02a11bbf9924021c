package zktest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/zktest"
)

// A leader killed with SIGKILL is replaced by an election among the other
// two, and comes back as a member on its own data.
func TestEnsembleLeaderKill(t *testing.T) {
	realserver.Require(t, "ZooKeeper ensemble")
	e, err := zktest.StartEnsemble(3)
	require.NoError(t, err)
	t.Cleanup(func() { e.Cleanup(t.Failed()) })
	require.Len(t, e.Servers(), 3)

	leader, err := e.Leader()
	require.NoError(t, err)
	leader.Kill()
	assert.False(t, leader.Running())

	var next *zktest.Node
	require.Eventually(t, func() bool {
		next, err = e.Leader()
		return err == nil
	}, 30*time.Second, 100*time.Millisecond, "the other two elect a leader")
	assert.NotEqual(t, leader.ID, next.ID)

	require.NoError(t, leader.Start())
	mode, err := leader.Mode()
	require.NoError(t, err)
	assert.Equal(t, "follower", mode, "the old leader rejoins as a follower")
}

// The standalone server still serves.
func TestStandaloneServer(t *testing.T) {
	s := zktest.Start(t)
	out, err := zktest.FourLetter(s.Addr, "srvr")
	require.NoError(t, err)
	assert.Contains(t, out, "Mode: standalone")
}

// A paused member answers nobody; resumed, it serves again in its quorum.
func TestEnsembleMemberPause(t *testing.T) {
	realserver.Require(t, "ZooKeeper ensemble")
	e, err := zktest.StartEnsemble(3)
	require.NoError(t, err)
	t.Cleanup(func() { e.Cleanup(t.Failed()) })
	n := e.Nodes[0]
	require.NoError(t, n.Pause())
	_, err = n.Mode()
	assert.Error(t, err, "a paused member does not answer")
	require.NoError(t, n.Resume())
	require.Eventually(t, func() bool {
		_, err := n.Mode()
		return err == nil
	}, 10*time.Second, 50*time.Millisecond, "the resumed member serves again")
}
