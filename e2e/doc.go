// Package e2e runs the finalizer end to end against real servers: a
// Temporal dev server, ZooKeeper, a file bucket. It is tests only; run with
// -record-histories it also records the workflow histories the replay test
// in package workflows checks determinism against.
package e2e
