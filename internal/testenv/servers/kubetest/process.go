package kubetest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
)

// process is one child (etcd or kube-apiserver) writing to its own log.
type process struct {
	*proc.Process
	logPath string
}

// startProcess starts bin with args, stdout and stderr into logPath, in a
// process group of its own that dies with the test binary (internal/testenv/servers/proc),
// so an aborted test run leaves no server behind.
func startProcess(name, bin, logPath string, args []string) (*process, error) {
	cmd := exec.Command(bin, args...)
	// etcd reads every ETCD_* variable as a flag: keep the caller's out.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ETCD_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	p, err := proc.Start(cmd, proc.Options{Name: name, Log: logPath})
	if err != nil {
		return nil, err
	}
	return &process{Process: p, logPath: logPath}, nil
}

// running reports an early exit as an error.
func (p *process) running() error {
	if err := p.Exited(); err != nil {
		return fmt.Errorf("%w (log %s)", err, p.logPath)
	}
	return nil
}

// stop sends SIGTERM, then SIGKILL after grace; a server that did not
// start is a no-op. How it ended is the log's to tell.
func (p *process) stop(grace time.Duration) {
	if p != nil {
		_ = p.Stop(grace)
	}
}

// signal sends sig to a running process.
func (p *process) signal(sig syscall.Signal) error {
	if err := p.running(); err != nil {
		return err
	}
	return p.Signal(sig)
}
