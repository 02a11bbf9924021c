// Package world builds the world a fault harness run (tools/faultharness)
// breaks: the servers, the proxies in front of them, the worker processes
// and the state bucket, and what each fault kind does to them.
//
// Start starts a Temporal dev server on a file database and one lane per
// HA store: a 3-node ZooKeeper ensemble with every node behind its own
// fault proxies (internal/testenv/faults/zkfault for frame-exact dropped requests and
// replies and partitions, a byte proxy for latency spikes and resets), or
// etcd and a real kube-apiserver with a fault proxy between them and a
// byte proxy in front; each lane with its pool of real worker processes
// (the finalizer-worker binary) on a task queue of its own. The state
// bucket is an S3 endpoint (gofakes3 in-process) that the workers reach
// through s3blob and a fault layer answering 503, dropping requests, or
// applying writes and deletes and dropping their reply.
//
// The harness reaches the stores (Lane.Checker, Lane.KeyVersion), the
// bucket (Bucket, States) and Temporal (Temporal, Lane.Client) on paths no
// fault touches, so that no fault ever blinds its checks. Inject applies
// one fault of a kind (FaultKind) to the world and heals it; Lane.ArmPublish
// arms a one-shot fault on one publish's write; Heal ends every fault
// left; Evidence counts what the servers' own logs and the fault layer
// say the faults did. What the run does with its jobs, the schedule of the
// faults and the invariant checks are the run's: nothing here knows of
// them.
package world
