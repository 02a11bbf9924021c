// Package harness is the end-to-end harness of the client's tests and the
// command-line tool's: one real Temporal dev server per test binary
// (internal/testenv/servers/temporaltest), and per test a real SDK worker running the
// finalizer's workflows and activities (the reconciler's included, asking
// the real server about finalizations) over the real embedded store (a
// bbolt file in t.TempDir()) and a file bucket (another t.TempDir()).
//
// Each test gets its own task queue and cluster name, so tests sharing the
// server never see each other's executions.
package harness
