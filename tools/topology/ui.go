package topology

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/freeport"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/proc"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/serverbin"
)

// UIVersion is the Web UI server the topology runs beside the frontend:
// the version the Temporal CLI we build embeds (dev mode's UI) and
// docker-compose.yml's temporalio/ui image, built by
// `scripts/temporal-server.sh ui`.
const UIVersion = "v2.42.1"

// UI is the Temporal Web UI server, a process of its own in front of the
// frontend, as the temporalio/ui image runs it.
type UI struct {
	// URL is where an operator's browser opens the UI.
	URL        string  `json:"url"`
	Port       int     `json:"port"`
	ConfigFile string  `json:"configFile"`
	Process    process `json:"process"`
}

// uiConfig is the UI server's configuration (its config/<env>.yaml): the
// frontend it calls, where it listens, the embedded UI on.
const uiConfig = `# Written by tools/topology: the Temporal Web UI server %[1]s in front of
# the frontend at %[2]s.
temporalGrpcAddress: "%[2]s"
host: "127.0.0.1"
port: %[3]d
enableUi: true
defaultNamespace: "%[4]s"
# No check for newer UI releases from the browser: the version is pinned.
notifyOnNewVersion: false
cors:
  # Plain HTTP: a Secure CSRF cookie would never be sent back, and every
  # write action (signal, terminate) would be refused.
  cookieInsecure: true
`

// setupUI builds or finds the UI server and writes its configuration for
// the frontend setupTemporal chose.
func (tp *Topology) setupUI(ctx context.Context, progress io.Writer) error {
	bin, err := serverbin.EnsureUI(ctx, progress)
	if err != nil {
		return err
	}
	port, err := freeport.Port()
	if err != nil {
		return err
	}
	dir := filepath.Join(tp.Dir, "ui")
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
		return err
	}
	tp.UI = UI{
		URL:        fmt.Sprintf("http://127.0.0.1:%d", port),
		Port:       port,
		ConfigFile: filepath.Join(dir, "config", "production.yaml"),
	}
	cfg := fmt.Sprintf(uiConfig, UIVersion, tp.Temporal.Frontend, port, tp.Temporal.Namespace)
	if err := os.WriteFile(tp.UI.ConfigFile, []byte(cfg), 0o644); err != nil {
		return err
	}
	tp.UI.Process = process{
		Name:    serverbin.UIServer,
		Args:    []string{filepath.Join(bin, serverbin.UIServer), "--root", dir, "--config", "config", "--env", "production", "start"},
		Log:     filepath.Join(dir, serverbin.UIServer+".log"),
		PIDFile: filepath.Join(dir, serverbin.UIServer+".pid"),
		Marker:  dir,
	}
	return nil
}

// startUI starts the UI server (a no-op while it runs) and waits until it
// serves the namespace from the frontend: its own health check says only
// that it listens.
func (tp *Topology) startUI(ctx context.Context) error {
	if err := tp.UI.Process.start(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	url := tp.UI.URL + "/api/v1/namespaces/" + tp.Temporal.Namespace
	var last error
	for {
		last = get(ctx, url)
		if last == nil {
			return nil
		}
		if tp.UI.Process.pid() == 0 {
			return fmt.Errorf("web UI server exited (log %s): %v\n%s", tp.UI.Process.Log, last, proc.Tail(tp.UI.Process.Log, 10))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("web UI server at %s not serving (log %s): %v", tp.UI.URL, tp.UI.Process.Log, last)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// UIPID is the UI server's process ID, 0 when it does not run.
func (tp *Topology) UIPID() int { return tp.UI.Process.pid() }

// get is nil when url answers 200.
func get(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s: %s", url, resp.Status, body)
	}
	return nil
}

// UIImageConfig is the configuration template the temporalio/ui image of
// UIVersion renders when it starts (config/docker.yaml of its module, from
// the module proxy): what the compose file's and the chart's settings must
// feed.
func UIImageConfig() ([]byte, error) {
	mod := "github.com/temporalio/ui-server/v2@" + UIVersion
	cmd := exec.Command("go", "mod", "download", "-json", mod)
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go mod download %s: %w", mod, err)
	}
	var got struct{ Dir, Error string }
	if err := json.Unmarshal(out, &got); err != nil {
		return nil, fmt.Errorf("go mod download %s: %w", mod, err)
	}
	if got.Error != "" {
		return nil, fmt.Errorf("go mod download %s: %s", mod, got.Error)
	}
	return os.ReadFile(filepath.Join(got.Dir, "config", "docker.yaml"))
}
