package faultharness

import "github.com/checkpoint-finalizer/finalizer/tools/faultharness/world"

// The world's vocabulary, under the names a run's configuration and
// report use: its stores (world.StoreZooKeeper ...) and its fault kinds
// (world.FaultKind), each kind's effect documented where the world
// applies it.

// Store backends a run can use.
const (
	StoreZooKeeper  = world.StoreZooKeeper
	StoreKubernetes = world.StoreKubernetes
	StoreBoth       = world.StoreBoth
)

// FaultKind names one kind of injected fault.
type FaultKind = world.FaultKind

// The fault kinds, in the order the report lists them.
const (
	DropReply          = world.DropReply
	DropRequest        = world.DropRequest
	Reset              = world.Reset
	Latency            = world.Latency
	PartitionNode      = world.PartitionNode
	PartitionAll       = world.PartitionAll
	SessionExpiry      = world.SessionExpiry
	LeaderKill         = world.LeaderKill
	WorkerKill         = world.WorkerKill
	TemporalRestart    = world.TemporalRestart
	Leadership         = world.Leadership
	WriteOutage        = world.WriteOutage
	BlobWriteFailure   = world.BlobWriteFailure
	BlobWriteReplyLost = world.BlobWriteReplyLost
	BlobDeleteFailure  = world.BlobDeleteFailure
	StaleReplay        = world.StaleReplay
	EtcdAppliedError   = world.EtcdAppliedError
	EtcdAppliedTimeout = world.EtcdAppliedTimeout
	EtcdLost           = world.EtcdLost
	EtcdReset          = world.EtcdReset
)

// AllKinds is every fault kind the harness injects, in report order.
var AllKinds = world.AllKinds

// KindsFor lists the fault kinds a run on store injects: StoreBoth
// injects every kind.
func KindsFor(store string) []FaultKind { return world.KindsFor(store) }

// missingKinds are the fault kinds a run on store does not inject,
// for the report.
func missingKinds(store string) []string {
	switch store {
	case StoreKubernetes:
		return []string{"ZooKeeper faults: run with the zookeeper store, or both"}
	case StoreZooKeeper, "":
		return []string{"Kubernetes API server faults (applied-then-timed-out, 5xx via the etcd proxy): run with the kubernetes store, or both"}
	}
	return nil
}
