// Package zookeeper is the ZooKeeper reference store, laid out as Flink
// lays out its checkpoints:
//
//	<root>/<cluster>/checkpoints/<job>/<checkpoint ID as %019d>   reference or tombstone
//	<root>/<cluster>/jobs/<job>                                   epoch, owner, watermark
//
// Every write is one multi-op conditioned on the versions just read: a
// publish checks the job node's version and creates the checkpoint node or
// sets it at its version, so the epoch and watermark it was decided against
// still hold when it lands.
//
// Failure semantics. A failed multi-op is classified by WHICH op failed, from
// the per-op results, never by the bare code: a failed check of the job node
// means the job changed and a failed create or set means the key changed;
// either way the store reads again and decides again, so a stale epoch is
// reported only when the job node really holds another epoch, and a "node
// exists" that is our own applied write is Published. Connection loss or
// close, session expiry, a moved session, a cancelled context and every other
// error are Unknown; ErrNoAuth is ErrForbidden. Every call syncs before it
// reads (a mutating call before each round of its compare-and-set loop), so
// what it decides, a rejection and a write found already done included,
// rests on every write the leader committed before the call, even when the
// session's server is a follower that lags behind. Verify fences with the
// tombstone of stores.DecideVerify, never with a version bump or a session
// close.
//
// What the nodes hold is input too: a job node or key node the encoders
// did not write, or a node under a job's keys or the cluster's jobs that is
// not ours, is refused with stores.ErrCorruptState (Unknown), never read
// as zero or skipped.
//
// go-zookeeper does not resend a request after a reconnect: a request in
// flight when the connection drops fails with zk.ErrConnectionClosed.
package zookeeper
