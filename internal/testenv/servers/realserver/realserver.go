// Package realserver is the switch between the two test tiers. `go test
// -short ./...` runs every test that needs no external server (ZooKeeper,
// kube-apiserver and etcd, the Temporal dev server or temporal-server,
// PostgreSQL, chromium, node) and builds or starts none of them; `bash
// scripts/test.sh` runs everything and fails if any test skips.
//
// Each harness calls Require where a test first asks for its server, so
// the skip lives in one place per harness; the starters call Refuse, so a
// test that reaches a server without Require fails in -short instead of
// quietly starting it.
package realserver

import (
	"flag"
	"fmt"
	"testing"
)

// Require skips tb under -short, naming the servers it needs.
func Require(tb testing.TB, servers string) {
	tb.Helper()
	if Short() {
		tb.Skipf("needs a real %s: skipped by -short (bash scripts/test.sh runs it)", servers)
	}
}

// RequireBuild skips tb under -short, naming what it builds: the quick
// tier builds no binary (a build with VCS stamping or other flags misses
// the build cache and costs seconds each).
func RequireBuild(tb testing.TB, what string) {
	tb.Helper()
	if Short() {
		tb.Skipf("builds %s: skipped by -short (bash scripts/test.sh runs it)", what)
	}
}

// Short reports whether this is a test binary run with -short. It is false
// outside tests (dev mode and the tools start the same servers) and before
// the test flags are parsed, where testing.Short would panic.
func Short() bool {
	return testing.Testing() && flag.Parsed() && testing.Short()
}

// Refuse is the starters' guard: under -short it returns an error naming the
// server, because the test that got here missed its Require.
func Refuse(servers string) error {
	if Short() {
		return fmt.Errorf("%s started under go test -short: the test must call realserver.Require first", servers)
	}
	return nil
}
