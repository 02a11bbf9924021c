// Package faultharness runs the checkpoint finalizer against real servers
// under injected faults and checks the design's invariants (I1-I7 of
// docs/design.md) from what the HA store and the state bucket actually hold.
//
// One Run starts its own world: a Temporal dev server on a file database,
// a 3-node ZooKeeper ensemble with every node behind its own fault proxies
// (internal/testenv/faults/zkfault for frame-exact dropped requests and replies and
// partitions, a byte proxy for latency spikes and resets), or etcd and a
// real kube-apiserver with a fault proxy between them, or both stores with
// the jobs split between them (each store with its own worker pool and
// task queue); an S3 state bucket (gofakes3 in-process, reached by the
// workers through s3blob and a fault layer that answers 503, drops requests,
// or applies writes and deletes and drops their reply); and real worker
// processes (the finalizer-worker binary), which it kills with SIGKILL and
// restarts. Job managers are played in-process: each claims its epoch
// through the client package, writes a stream of checkpoints in
// internal/testenv/fixtures/jobmanager's layout to the bucket, triggers their finalizations
// and waits for each. The harness reads and writes the bucket and the
// stores on paths no fault touches.
//
// Around finalization the run exercises the job lifecycle (real mode): job
// managers retire their jobs (half retaining the checkpoints for the
// operator, half having the reconciler discard them), wait until the
// reconciler has forgotten them and claim the job ID again above the old
// epochs with checkpoint IDs restarting at 1; adversarial requests name
// another cluster's job's checkpoint directory or a nested one (expected:
// Failed, nothing written), or an epoch nobody claimed, or come from a
// job manager triggering before its claim lands (expected: Discarded,
// live data kept, retention going on). The reconciler runs with apply and
// dangling quarantine every few seconds, and a continuous check samples
// every live reference's handle, metadata and data, confirming a miss by
// reading the key again, from the random phase until the run settled.
// On a run on both stores each store's jobs have a cluster of their own,
// as each cluster of a deployment has one store.
//
// A run has five phases:
//  1. targeted scenarios, alone on the system so that their faults hit
//     exactly the write they aim at: a reply dropped after an applied
//     publish, and a publish whose requests are all dropped, fenced, then
//     replayed after its fence;
//  2. the random phase: K finalizations across several jobs while a seeded
//     schedule injects F faults of every kind, spread evenly over the
//     finalizations, and a seeded plan spreads the retirements and the
//     adversarial requests over them too (the schedule and the plan are
//     reproducible from the seed; which write a fault hits depends on
//     timing);
//  3. everything heals; the harness waits for every finalization to end and
//     retention to settle, and times it;
//  4. the invariants are checked from the store's and the bucket's content
//     (state a retirement retained, or the reconciler reported and kept,
//     is counted, not a leak), and every standing fence is attacked with a
//     replayed stale attempt;
//  5. a simulated recovery claims a new epoch per job, reads its newest
//     reference and retrieves the handle and the data.
//
// Check and Leftovers judge a run outside the harness with the same code
// (the production topology's end-to-end test, tools/topologytest): given
// what it Observed (each finalization's request and outcome, each claim's
// restore point), its HA store and its state bucket, Check makes the
// checks of phase 4 (I1-I5, I7) and judges the restore points, and
// Leftovers says whether retention and discards have settled.
//
// The world a run breaks (servers, proxies, worker processes, the bucket
// and what each fault kind does to them) is package
// tools/faultharness/world; the invariant checks, over what a run observed
// and what its store and bucket hold, are package
// tools/faultharness/invariants; this package is the run: its schedule,
// the job managers and their finalizations, the lifecycle, the timing of
// the faults, the evidence, the settling, which checks to make when, and
// the report. Package tools/faultharness/internal/pace paces them all.
//
// Naive mode switches the protocol's safety off as Flink did before
// FLINK-22494: internal/testenv/faults/naive's workflow (registered as NaiveWorkflow by
// the harness in-process on a task queue of its own, its activities run by the
// real workers) persists, publishes once and discards on any publish error,
// with no verify and no fence. The targeted scenarios make its violations
// deterministic.
package faultharness
