package devserver

import (
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
)

// stopGrace is how long Stop waits after SIGTERM before it sends SIGKILL.
const stopGrace = 10 * time.Second

// launch starts the server with its output appended to logPath. The child
// gets its own process group (a signal reaches all of it, and a Ctrl-C in
// the dev command's terminal does not hit the server before the command
// stops it in order) and dies with its parent (Pdeathsig), so a test binary
// that is killed leaves no server behind: internal/testenv/servers/proc's contract.
func launch(bin string, args []string, logPath string) (*proc.Process, error) {
	header := fmt.Sprintf("=== devserver %s: %s %s\n", time.Now().Format(time.RFC3339Nano), bin, strings.Join(args, " "))
	return proc.Start(exec.Command(bin, args...), proc.Options{Name: "server", Log: logPath, Header: header})
}
