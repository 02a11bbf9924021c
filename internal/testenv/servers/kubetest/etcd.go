package kubetest

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/freeport"
)

// startEtcd starts a single etcd member on loopback. --unsafe-no-fsync:
// durability across a machine crash is not what these tests measure.
func startEtcd(bin, dir string) (*process, string, error) {
	clientPort, err := freeport.Port()
	if err != nil {
		return nil, "", err
	}
	peerPort, err := freeport.Port()
	if err != nil {
		return nil, "", err
	}
	clientURL := fmt.Sprintf("http://127.0.0.1:%d", clientPort)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	p, err := startProcess("etcd", bin, filepath.Join(dir, "etcd.log"), []string{
		"--name", "kubetest",
		"--data-dir", filepath.Join(dir, "etcd-data"),
		"--listen-client-urls", clientURL,
		"--advertise-client-urls", clientURL,
		"--listen-peer-urls", peerURL,
		"--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "kubetest=" + peerURL,
		"--unsafe-no-fsync",
		"--log-level", "warn",
		"--logger", "zap",
	})
	if err != nil {
		return nil, "", err
	}
	if err := waitHTTP(p, clientURL+"/health", nil, 30*time.Second); err != nil {
		p.stop(5 * time.Second)
		return nil, "", fmt.Errorf("etcd: %w", err)
	}
	return p, clientURL, nil
}

// waitHTTP polls url until it answers 200, the process exits or timeout.
func waitHTTP(p *process, url string, client *http.Client, timeout time.Duration) error {
	if client == nil {
		client = &http.Client{Timeout: time.Second}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var last error
	for {
		if err := p.running(); err != nil {
			return err
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("%s: %s", url, resp.Status)
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready after %s: %v (log %s)", timeout, last, p.logPath)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// EtcdDBSize is the size of etcd's database as etcd reports it: the file
// (etcd_mvcc_db_total_size_in_bytes, what its space quota is counted
// against) and the part of it in use (..._in_use_in_bytes: what
// compaction leaves; the rest is reused before the file grows).
func (s *Server) EtcdDBSize() (total, inUse int64, err error) {
	resp, err := http.Get(s.etcdURL + "/metrics")
	if err != nil {
		return 0, 0, fmt.Errorf("etcd metrics: %w", err)
	}
	defer resp.Body.Close()
	found := 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, v, ok := strings.Cut(sc.Text(), " ")
		var into *int64
		switch {
		case !ok:
			continue
		case name == "etcd_mvcc_db_total_size_in_bytes":
			into = &total
		case name == "etcd_mvcc_db_total_size_in_use_in_bytes":
			into = &inUse
		default:
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("etcd metrics: %s: %w", name, err)
		}
		*into = int64(f)
		found++
	}
	if found != 2 {
		return 0, 0, fmt.Errorf("etcd metrics: the database sizes are missing (%v)", sc.Err())
	}
	return total, inUse, nil
}
