// Package topologytest runs the finalizer end to end on the production
// topology (tools/topology): Temporal on PostgreSQL with SQL advanced
// visibility, a 3-node ZooKeeper ensemble, two finalizer-worker processes
// and the finalizer CLI, while a worker, the Temporal server, PostgreSQL
// and the ZooKeeper leader fail under load. It has only a test.
package topologytest
