package world

import "slices"

// FaultKind names one kind of injected fault.
type FaultKind string

// The fault kinds, in the order the report lists them.
const (
	// DropReply lets the next write (a ZooKeeper multi-op) reach the server
	// and cuts the connection before its reply: applied, then Unknown.
	DropReply FaultKind = "zk-drop-reply"
	// DropRequest cuts the connection instead of forwarding the next write.
	DropRequest FaultKind = "zk-drop-request"
	// Reset closes every open client connection to the ensemble.
	Reset FaultKind = "connection-reset"
	// Latency delays every byte between workers and the ensemble.
	Latency FaultKind = "latency-spike"
	// PartitionNode silences one node's client traffic both ways; clients
	// move to another node.
	PartitionNode FaultKind = "partition-node"
	// PartitionAll silences the whole ensemble for less than the session
	// timeout: connection loss, the session survives.
	PartitionAll FaultKind = "partition-all"
	// SessionExpiry silences the whole ensemble for longer than the session
	// timeout: the sessions expire and the clients open new ones.
	SessionExpiry FaultKind = "session-expiry"
	// LeaderKill kills the ZooKeeper leader with SIGKILL and restarts it.
	LeaderKill FaultKind = "zk-leader-kill"
	// WorkerKill kills a worker process with SIGKILL and starts a new one.
	WorkerKill FaultKind = "worker-kill"
	// TemporalRestart kills the Temporal dev server with SIGKILL and
	// starts it again on its file database.
	TemporalRestart FaultKind = "temporal-restart"
	// Leadership claims a new epoch for a job while one of its
	// finalizations is in flight.
	Leadership FaultKind = "leadership-change"
	// WriteOutage drops every write request to the store for a few
	// seconds: longer than a publish's own retries.
	WriteOutage FaultKind = "write-outage"
	// BlobWriteFailure fails every write (PUT) of the workers to the state
	// bucket for a few seconds: answered 503, or the request dropped.
	BlobWriteFailure FaultKind = "blob-write-failure"
	// BlobWriteReplyLost lets the workers' writes to the state bucket
	// apply for a few seconds and resets the connection instead of
	// answering: applied, then unknown.
	BlobWriteReplyLost FaultKind = "blob-write-applied-reply-lost"
	// BlobDeleteFailure fails every delete of the workers for a few
	// seconds: answered 503, the request dropped, or applied and the reply
	// lost.
	BlobDeleteFailure FaultKind = "blob-delete-failure"
	// StaleReplay replays an old publish attempt of a finished finalization
	// whose key a tombstone fences, straight to the store.
	StaleReplay FaultKind = "stale-replay"

	// EtcdAppliedError lets the next ConfigMap write reach etcd and cuts
	// the API server's etcd connection before the answer: applied, and the
	// worker gets a real 5xx.
	EtcdAppliedError FaultKind = "kube-etcd-applied-5xx"
	// EtcdAppliedTimeout withholds etcd's answer to the next ConfigMap
	// write longer than the worker's request timeout: applied, and the
	// worker's deadline expires.
	EtcdAppliedTimeout FaultKind = "kube-etcd-applied-timeout"
	// EtcdLost drops the next ConfigMap write before etcd sees it: a real
	// 5xx for a write that did not happen.
	EtcdLost FaultKind = "kube-etcd-lost-5xx"
	// EtcdReset cuts the API server's connections to etcd.
	EtcdReset FaultKind = "kube-etcd-reset"
)

// commonKinds hit the finalizer whatever its store.
var commonKinds = []FaultKind{WriteOutage, BlobWriteFailure, BlobWriteReplyLost, BlobDeleteFailure,
	WorkerKill, TemporalRestart, Leadership, StaleReplay}

// storeKinds are each store's own kinds, in the order the report lists them.
var storeKinds = map[string][]FaultKind{
	StoreZooKeeper:  {DropReply, DropRequest, Reset, Latency, PartitionNode, PartitionAll, SessionExpiry, LeaderKill},
	StoreKubernetes: {EtcdAppliedError, EtcdAppliedTimeout, EtcdLost, EtcdReset, Reset, Latency},
}

// AllKinds is every fault kind the harness injects, in report order.
var AllKinds = []FaultKind{DropReply, DropRequest, Reset, Latency, PartitionNode, PartitionAll, SessionExpiry, LeaderKill,
	EtcdAppliedError, EtcdAppliedTimeout, EtcdLost, EtcdReset, WriteOutage, BlobWriteFailure, BlobWriteReplyLost,
	BlobDeleteFailure, WorkerKill, TemporalRestart, Leadership, StaleReplay}

// KindsFor lists the fault kinds a run on store injects: StoreBoth
// injects every kind.
func KindsFor(store string) []FaultKind {
	var out []FaultKind
	switch store {
	case "":
		out = slices.Clone(storeKinds[StoreZooKeeper])
	case StoreBoth:
		for _, k := range AllKinds {
			if !slices.Contains(commonKinds, k) {
				out = append(out, k)
			}
		}
	default:
		out = slices.Clone(storeKinds[store])
	}
	return append(out, commonKinds...)
}
