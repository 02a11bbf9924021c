// Package devserver runs a real Temporal dev server (`temporal server
// start-dev` of the Temporal CLI, server 1.29.1 with SQLite and the Web UI)
// as a child process on free loopback ports: the Temporal of the product's
// dev mode (cmd/finalizer-dev), and of the tests and tools through it.
//
// The CLI is not a module dependency: EnsureCLI, the one installer (the
// test command's scripts/temporal-cli.sh runs it through `finalizer-dev
// temporal-cli`), installs it once with `go install` into a cache folder
// outside the repo (~12-18 min cold on 2 cores) and serializes concurrent
// callers, across processes, with a lock file.
//
// StartServer returns once the frontend answers and the requested custom
// search attributes are visible, so a workflow may upsert them at once. The
// database is a SQLite file (a temporary one by default), so Kill and
// Restart can test a server crash and restart on its own file.
//
// Nothing here depends on a *testing.T; internal/testenv/servers/temporaltest is the thin
// helper that gives a test its own server.
package devserver
