// Package worker is the checkpoint finalizer's worker process as a library:
// configuration, wiring of the stores to the Temporal workflows and
// activities, metrics and graceful shutdown. worker/cmd/finalizer-worker is
// a thin main over it; the dev mode and the tests run it in-process.
//
// # Contract
//
//   - LoadConfig reads flags with environment fallbacks (a flag wins over
//     FINALIZER_<FLAG IN UPPER_SNAKE>, which wins over the default). Secrets
//     (the Temporal API key, the ZooKeeper digest password) come from the
//     environment or a file, never from a flag, so they never show in a
//     process listing, and Config never prints them (see Secret).
//   - Config.Validate checks everything that can be checked without the
//     network, including that TLS and secret files load. A bad setting is a
//     *stores.InvalidError (errors.Is(err, stores.ErrInvalid)) naming the flag
//     and its environment variable and the rule broken. LoadValidConfig
//     is both, a value that does not parse reported with every other
//     problem.
//   - Run validates first and returns such an error before it opens or dials
//     anything. Then it opens the HA reference store and the blob state
//     store, dials Temporal, registers the workflows and activities on the
//     task queue, serves /metrics, /livez and /readyz (and, on the embedded
//     store, /backup to loopback clients: Backup), and runs until ctx ends.
//
// # Failure semantics
//
//   - A store or Temporal that cannot be reached at start is an error from
//     Run: the process exits and its supervisor restarts it. After start,
//     store failures are the activities' business (retries, Verify) and never
//     stop the worker.
//   - A fatal worker error (namespace gone, credentials refused) ends Run
//     with that error.
//   - Shutdown (ctx done, e.g. SIGTERM): the worker stops polling, running
//     activities get Config.ShutdownGrace to finish; those still running are
//     cancelled and handed back to the server, which retries them elsewhere
//     once their heartbeat or start-to-close timeout expires. Every activity
//     is idempotent, so a handed-back one is safe to run again. The stores
//     are closed only after the worker has stopped.
package worker
