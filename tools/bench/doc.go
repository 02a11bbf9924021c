// Package bench measures finalizations side by side on the same real
// servers (a Temporal dev server, ZooKeeper, the embedded store) in one
// run: the durable path triggered in-process with eager start, the same
// path triggered from a separate client process, a naive workflow with one
// plain activity per step, and the direct, non-durable path (persist and
// publish called in-process, as Flink's job manager does). Each at a fixed
// offered rate (open loop) and at maximum throughput (closed loop), with
// throughput, latency percentiles, CPU and peak memory of the process that
// runs the worker; and, on ZooKeeper, the worker's memory and the fast
// path's throughput with many finalizations parked in Verifying.
//
// cmd/finalizer-bench is its command.
package bench
