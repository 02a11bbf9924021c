package proc_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
)

// helperEnv makes the test binary a child of the tests: its value names
// what the child does (see TestMain).
const helperEnv = "PROC_TEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "sleep": // dies by SIGTERM, Go's default
	case "ignore-term": // "ready" on stdout once it ignores SIGTERM
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
	case "grandchild": // a child of its own in its group, its pid on stdout
		c := exec.Command("sleep", "300")
		if err := c.Start(); err != nil {
			os.Exit(3)
		}
		fmt.Println(c.Process.Pid)
	case "parent", "detaching-parent": // a supervised child, its pid on stdout, then exits
		p, err := proc.Start(helper("sleep"), proc.Options{Detach: os.Getenv(helperEnv) == "detaching-parent"})
		if err != nil {
			os.Exit(3)
		}
		fmt.Println(p.Pid())
		os.Exit(0)
	}
	time.Sleep(5 * time.Minute)
	os.Exit(4)
}

// helper is the test binary as a child doing what.
func helper(what string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"="+what)
	return cmd
}

// start starts a helper, which prints what it reports on stdout (a
// helper that exits must not be read after its exit: see Start), and
// kills it when the test ends.
func start(t *testing.T, what string, opts proc.Options) (*proc.Process, *bufio.Reader) {
	t.Helper()
	cmd := helper(what)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	p, err := proc.Start(cmd, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Kill() })
	return p, bufio.NewReader(stdout)
}

// gone: pid has exited (a zombie no one reaped yet counts).
func gone(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

// statField is field i of /proc/<pid>/stat after the command name, which
// may hold spaces (0: state, 1: ppid, 2: process group, 3: session).
func statField(t *testing.T, pid, i int) string {
	t.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	require.NoError(t, err)
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return fields[i]
}

// readPid reads the pid a helper prints on stdout.
func readPid(t *testing.T, out *bufio.Reader) int {
	t.Helper()
	line, err := out.ReadString('\n')
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	require.NoError(t, err)
	return pid
}

func TestStopHonouredSIGTERMIsClean(t *testing.T) {
	p, _ := start(t, "sleep", proc.Options{})
	assert.True(t, p.Running())
	began := time.Now()
	require.NoError(t, p.Stop(time.Minute), "a death by SIGTERM is a clean stop")
	assert.Less(t, time.Since(began), 30*time.Second, "no wait for the grace")
	assert.False(t, p.Running())
	assert.ErrorIs(t, p.Exited(), proc.ErrExited)
	assert.NoError(t, p.Stop(time.Minute), "a second stop: the same clean exit")
}

func TestStopKillsAfterGraceWhenSIGTERMIsIgnored(t *testing.T) {
	p, stdout := start(t, "ignore-term", proc.Options{})
	ready, err := stdout.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ready\n", ready)
	began := time.Now()
	err = p.Stop(time.Second)
	assert.ErrorIs(t, err, proc.ErrKilled)
	assert.GreaterOrEqual(t, time.Since(began), time.Second, "the grace first")
	assert.False(t, p.Running(), "Stop returns after the exit")
}

func TestKillOfAnExitedProcessIsANoOp(t *testing.T) {
	p, _ := start(t, "sleep", proc.Options{})
	require.NoError(t, p.Kill())
	assert.False(t, p.Running())
	var exit *exec.ExitError
	require.ErrorAs(t, p.Wait(), &exit, "killed: the wait reports the signal")
	assert.NoError(t, p.Kill())
	assert.ErrorIs(t, p.Signal(syscall.SIGCONT), proc.ErrExited, "no signal to a pid that may be another's")
}

func TestFailedExitIsReported(t *testing.T) {
	p, err := proc.Start(exec.Command("sh", "-c", "exit 3"), proc.Options{Name: "failing"})
	require.NoError(t, err)
	<-p.Done()
	assert.ErrorIs(t, p.Exited(), proc.ErrExited)
	assert.ErrorContains(t, p.Exited(), "failing exited: exit status 3")
	assert.ErrorContains(t, p.Stop(time.Second), "exit status 3", "Stop reports a failed exit")
}

func TestStartErrorNamesTheProcess(t *testing.T) {
	_, err := proc.Start(exec.Command(filepath.Join(t.TempDir(), "missing")), proc.Options{Name: "server"})
	assert.ErrorContains(t, err, "start server")
}

func TestLogIsAppendedAfterTheHeader(t *testing.T) {
	log := filepath.Join(t.TempDir(), "child.log")
	for i := range 2 {
		p, err := proc.Start(exec.Command("echo", "life", strconv.Itoa(i)), proc.Options{Log: log, Header: "=== start\n"})
		require.NoError(t, err)
		require.NoError(t, p.Wait())
	}
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	assert.Equal(t, "=== start\nlife 0\n=== start\nlife 1\n", string(b))
}

// Signals reach the whole group: a grandchild dies with the child.
func TestKillReachesTheProcessGroup(t *testing.T) {
	p, stdout := start(t, "grandchild", proc.Options{})
	grandchild := readPid(t, stdout)
	require.False(t, gone(grandchild))
	require.NoError(t, p.Kill())
	assert.Eventually(t, func() bool { return gone(grandchild) }, 5*time.Second, 10*time.Millisecond)
}

// A supervised child dies with its parent (Pdeathsig), unless detached:
// then it outlives it, in a session of its own.
func TestChildDiesWithItsParentUnlessDetached(t *testing.T) {
	for _, tc := range []struct {
		mode     string
		survives bool
	}{{"parent", false}, {"detaching-parent", true}} {
		t.Run(tc.mode, func(t *testing.T) {
			cmd := helper(tc.mode)
			stdout, err := cmd.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			child := readPid(t, bufio.NewReader(stdout))
			t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) })
			require.NoError(t, cmd.Wait())
			if !tc.survives {
				assert.Eventually(t, func() bool { return gone(child) }, 5*time.Second, 10*time.Millisecond)
				return
			}
			time.Sleep(500 * time.Millisecond)
			assert.False(t, gone(child), "outlives its parent")
			assert.Equal(t, strconv.Itoa(child), statField(t, child, 3), "a session of its own")
		})
	}
}
