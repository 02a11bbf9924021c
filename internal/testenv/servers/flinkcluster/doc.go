// Package flinkcluster runs a standalone Flink cluster as separate
// processes, for the tests that prove the Flink plugin on a real cluster:
// two JobManagers (Flink's StandaloneSessionClusterEntrypoint) and a
// TaskManager (TaskManagerRunner), started the way Flink's bin/ scripts
// start them, and Flink's own command-line client (CliFrontend) to run,
// stop and cancel jobs.
//
// Maven Central has no flink-dist, so Lib assembles a distribution's lib/
// from Flink's module jars with Maven (lib.pom.xml lists them), once per
// Flink version, into the cache of internal/testenv/servers/cachedir. Each Cluster gets a
// lib/ of its own: those jars plus the extra ones its options name (the
// plugin's jar, in the plugin's world only), as a Flink user installs a
// plugin.
//
// ZooKeeper, the Temporal server and the finalizer's worker are the
// caller's (internal/testenv/servers/zktest, internal/testenv/servers/devserver, internal/testenv/servers/workerproc): a
// cluster gets their addresses through its configuration. Processes run
// under internal/testenv/servers/proc, one log each that a JobManager's later lives append
// to, and die with the test binary.
package flinkcluster
