// Package bench measures finalizations side by side on the same real
// servers (a Temporal server, ZooKeeper, a kube-apiserver on etcd, the
// embedded store) in one run: the cheapest workflow Temporal runs for it
// (the floor), the durable path triggered in-process with eager start, the same
// path triggered from a separate client process, a naive workflow with one
// plain activity per step, and the direct, non-durable path (persist and
// publish called in-process, as Flink's job manager does). Each at a fixed
// offered rate (open loop) and at maximum throughput (closed loop), with
// throughput, latency percentiles, CPU and peak memory of the process that
// runs the worker and of the Temporal server, every cell repeated (the
// report gives medians and spreads); then the history events and billable
// actions of one uneventful finalization per path, the footprint of one
// job in the store after many checkpoints, and, on ZooKeeper, the worker's
// memory and the fast path's throughput with many finalizations parked in
// Verifying. The report ends with the targets and their verdicts.
//
// cmd/finalizer-bench is its command.
package bench
