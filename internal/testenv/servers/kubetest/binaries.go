package kubetest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/cachedir"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
)

// KubeVersion is the kube-apiserver version the harness runs.
const KubeVersion = "v1.37.2"

// Environment variables that point at binaries instead of the cache.
const (
	EnvAPIServer = "KUBETEST_KUBE_APISERVER"
	EnvEtcd      = "KUBETEST_ETCD"
)

var binaries struct {
	once            sync.Once
	apiserver, etcd string
	err             error
}

// Binaries returns the paths of kube-apiserver and etcd, running
// scripts/kube-apiserver.sh when either is missing (cold: ~20 min).
func Binaries() (apiserver, etcd string, err error) {
	if err := realserver.Refuse("kube-apiserver and etcd"); err != nil {
		return "", "", err
	}
	binaries.once.Do(func() {
		binaries.apiserver, binaries.etcd, binaries.err = findOrBuild()
	})
	return binaries.apiserver, binaries.etcd, binaries.err
}

func cachedPaths() (apiserver, etcd string) {
	apiserver = os.Getenv(EnvAPIServer)
	if apiserver == "" {
		apiserver = filepath.Join(cachedir.Root(), "kube-apiserver", KubeVersion, "kube-apiserver")
	}
	etcd = os.Getenv(EnvEtcd)
	if etcd == "" {
		etcd = "/usr/bin/etcd"
		if !executable(etcd) {
			etcd = filepath.Join(cachedir.Root(), "etcd", "v3.7.3", "etcd")
		}
	}
	return apiserver, etcd
}

func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

func findOrBuild() (string, string, error) {
	a, e := cachedPaths()
	if executable(a) && executable(e) {
		return a, e, nil
	}
	script, err := scriptPath()
	if err != nil {
		return "", "", err
	}
	fmt.Fprintf(os.Stderr, "kubetest: %s or %s missing, running %s (cold: ~20 min)\n", a, e, script)
	cmd := exec.Command("bash", script)
	cmd.Env = append(os.Environ(), "KUBE_VERSION="+KubeVersion)
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(&out, os.Stderr)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", "", fmt.Errorf("kubetest: %s: %w", script, err)
	}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "KUBE_APISERVER="); ok && os.Getenv(EnvAPIServer) == "" {
			a = v
		}
		if v, ok := strings.CutPrefix(sc.Text(), "ETCD="); ok && os.Getenv(EnvEtcd) == "" {
			e = v
		}
	}
	if !executable(a) || !executable(e) {
		return "", "", fmt.Errorf("kubetest: %s finished but %s or %s is not executable", script, a, e)
	}
	return a, e, nil
}

// scriptPath finds scripts/kube-apiserver.sh from this source file, or
// from the module root when built with -trimpath.
func scriptPath() (string, error) {
	const rel = "scripts/kube-apiserver.sh"
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		p := filepath.Join(filepath.Dir(file), "..", "..", "..", "..", rel)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err == nil {
		if gomod := strings.TrimSpace(string(out)); gomod != "" && gomod != os.DevNull {
			p := filepath.Join(filepath.Dir(gomod), rel)
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
		}
	}
	return "", errors.New("kubetest: cannot find " + rel)
}
