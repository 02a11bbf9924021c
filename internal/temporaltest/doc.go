// Package temporaltest runs a real Temporal dev server (`temporal server
// start-dev` of the Temporal CLI, server 1.29.1 with SQLite and the Web UI)
// as a child process on free loopback ports, for integration tests and for
// the product's dev mode.
//
// The CLI is not a module dependency: EnsureCLI installs it once with `go
// install` into a cache folder outside the repo (~12-18 min cold on 2 cores,
// the same logic as scripts/temporal-cli.sh) and serializes concurrent
// callers, across processes, with a lock file.
//
// StartServer returns once the frontend answers and the requested custom
// search attributes are visible, so a workflow may upsert them at once. The
// database is a SQLite file (a temporary one by default), so Kill and
// Restart can test a server crash and restart on its own file.
//
// The core API does not depend on a *testing.T; Start is a thin helper for
// tests on top of it.
package temporaltest
