package flinkcluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"time"
)

// cliTimeout bounds one command of the client.
const cliTimeout = 3 * time.Minute

var (
	submitted      = regexp.MustCompile(`JobID ([0-9a-f]{32})`)
	savepointTaken = regexp.MustCompile(`Savepoint completed\. Path: (\S+)`)
)

// Restore is what a submission restores from (flink run -s): a savepoint
// or retained checkpoint, and the claim mode (claim, no_claim, legacy;
// Flink's default no_claim when empty). The zero Restore starts afresh.
type Restore struct {
	From      string
	ClaimMode string
}

// Run submits a job jar detached (flink run -d), restored as from says,
// and returns its job ID.
func (c *Cluster) Run(ctx context.Context, jar string, from Restore, args ...string) (string, error) {
	cli := []string{"run", "-d"}
	if from.From != "" {
		cli = append(cli, "-s", from.From)
	}
	if from.ClaimMode != "" {
		cli = append(cli, "--claimMode", from.ClaimMode)
	}
	out, err := c.cli(ctx, append(append(cli, jar), args...)...)
	if err != nil {
		return "", err
	}
	m := submitted.FindStringSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("flink run: no job ID in its output:\n%s", out)
	}
	return m[1], nil
}

// StopWithSavepoint stops a job with a savepoint into dir (flink stop) and
// returns the savepoint's path.
func (c *Cluster) StopWithSavepoint(ctx context.Context, job, dir string) (string, error) {
	out, err := c.cli(ctx, "stop", "--savepointPath", dir, job)
	if err != nil {
		return "", err
	}
	m := savepointTaken.FindStringSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("flink stop: no savepoint path in its output:\n%s", out)
	}
	return m[1], nil
}

// Cancel cancels a job (flink cancel).
func (c *Cluster) Cancel(ctx context.Context, job string) error {
	_, err := c.cli(ctx, "cancel", job)
	return err
}

// cli runs Flink's command-line client on the cluster's client
// configuration (FLINK_CONF_DIR, as bin/flink does), its log into
// log/cli.log, and returns what it printed.
func (c *Cluster) cli(ctx context.Context, args ...string) (string, error) {
	// A client that cannot reach the cluster retries for long; no call of
	// a scenario takes minutes.
	ctx, cancel := context.WithTimeout(ctx, cliTimeout)
	defer cancel()
	log := filepath.Join(filepath.Dir(c.client), "log", "cli.log")
	cmd := exec.CommandContext(ctx, c.java[0], append(append(append([]string{}, c.java[1:]...), "-Xmx256m",
		"-Dlog4j.configurationFile=file:"+filepath.Join(c.client, "log4j-cli.properties"), "-Dlog.file="+log, cliMain), args...)...)
	cmd.Env = append(os.Environ(), "FLINK_CONF_DIR="+c.client)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("flink %s: %w\n%s", args[0], err, out.Bytes())
	}
	return out.String(), nil
}
