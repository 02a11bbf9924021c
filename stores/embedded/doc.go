// Package embedded is the single-machine reference store, the default when
// no ZooKeeper or Kubernetes is configured (the role Flink's standalone mode
// plays). It keeps jobs and references in one bbolt file and is the
// stores.Engine over a driver whose load is one read transaction and whose
// commit is one read-write transaction that first checks every byte the
// load read, so compare-and-set is real; a commit is reported written only
// after bbolt has fsynced it.
//
// The file is locked to one process: a second Open fails with ErrLocked
// after LockTimeout instead of sharing it. Within the process the store is
// safe for concurrent use. So a copy of a running store comes from the
// process that holds it (Store.Backup, one read transaction); BackupFile
// copies a stopped one, and VerifyFile checks a copy before it is restored.
//
// Failure semantics: definite rejections come from the shared decisions in
// package stores. Any error of bbolt itself during a write (a failed fsync,
// a full disk) is Unknown: the page may or may not be durable.
package embedded
