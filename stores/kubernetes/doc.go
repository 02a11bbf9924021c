// Package kubernetes is the stores.ReferenceStore backend over Kubernetes
// ConfigMaps, written with k8s.io/client-go against a real API server.
//
// # Layout
//
// One ConfigMap per (cluster, job), named "<cluster>.<job>.checkpoints"
// (see ConfigMapName). Both IDs are DNS-1123 labels, which cannot contain
// '.', so the dots split the name unambiguously and two different jobs never
// share a ConfigMap; labels record the cluster and job as well, and a
// ConfigMap whose labels disagree with its name is refused as
// stores.ErrCorruptState (Unknown), never written.
//
//   - data["checkpointID-%019d"]: one key per checkpoint, holding
//     stores.EncodeEntry of a reference or a tombstone (never state).
//   - annotations checkpoint-finalizer.io/{epoch,owner,watermark,retired,
//     forgotten-epoch} and state-version ("2"): the job's stores.JobState,
//     in the same object as the keys, so that one Update checks and changes
//     the epoch, the watermark and a key together. Every one is written on
//     every state change and required on every read: an annotation removed
//     (kubectl annotate ...-, a GitOps replace), malformed or inconsistent
//     is stores.ErrCorruptState, never read as zero, and so is another
//     annotation under checkpoint-finalizer.io/ or a binary key under the
//     checkpoint key prefix. A ConfigMap without state-version is of
//     format version 1, read alike. Other tools' annotations and keys are
//     left alone (and count against a publish's size budget).
//
// # Writes
//
// Every mutating call reads the ConfigMap with a quorum GET (resourceVersion
// "", never "0", never an informer cache), asks the pure decision function
// of package stores what to write, and writes it with one Create (the
// ConfigMap did not exist) or one Update carrying the resourceVersion it read.
// No unconditional update, no patch: the API server applies the write only
// if nothing changed since the read.
//
// client-go resends a request by itself after a 429 or a 5xx carrying
// Retry-After (up to 10 times by default). A resent Update whose first copy
// was applied comes back as 409 Conflict, the FLINK-28265 trap. Every request
// here is sent with MaxRetries(0), so each write is sent exactly once, and
// this package's own loop does the retrying: after a 409 Conflict, an
// AlreadyExists, a NotFound on Update or a 429 it reads the ConfigMap again
// and decides again. A retry that finds its own write (our token) is
// therefore Published, and the loop is bounded: running out of attempts is
// Unknown, never Rejected. (Go's HTTP transport still resends a request it
// never wrote, or one HTTP/2 says the server refused unprocessed: harmless.)
//
// # Failure classification
//
//	Situation                                          Outcome
//	-------------------------------------------------  -------------------------------
//	decision says stale epoch / retired job            Rejected (ErrStaleEpoch, ErrRetired)
//	key holds another token                            Rejected (ErrConflict)
//	tombstone covers the attempt                       Rejected (ErrFenced)
//	checkpoint at or below the watermark               Rejected (ErrBelowWatermark)
//	ConfigMap would exceed its size budget             Rejected (ErrTooLarge), nothing sent
//	input breaks a validation rule                     Rejected (ErrInvalid), nothing sent
//	401, 403                                           Rejected (stores.ErrForbidden)
//	400, 404 on Create (missing namespace), 405, 415,  Rejected (ErrRefused, which wraps
//	422                                                  ErrInvalid); 413 is ErrTooLarge
//	409 Conflict, AlreadyExists, 404 on Update         read again, decide again
//	429 Too Many Requests                              wait (Retry-After), read again, decide again
//	out of attempts                                    Unknown
//	5xx (500 etcd unavailable, 503, 504 timeout)       Unknown: the write may have been applied
//	client timeout, deadline during a request          Unknown
//	connection reset, EOF, refused, TLS errors         Unknown
//	undecodable content, an annotation missing,        Unknown (stores.ErrCorruptState: needs
//	foreign ConfigMap under our name                     an operator; never guessed)
//	any other error                                    Unknown
//
// A definite answer of the API server (4xx other than 409 and 429) comes
// before the write is applied: authentication, authorization, admission and
// validation run before storage, and with resends disabled no earlier copy
// of the same request can have been applied. Everything else may have been
// applied, now or later; the caller then calls Verify, which reads with a
// quorum GET and, when the key does not hold its token, writes a tombstone
// fence with the same conditional Update. A stale Update replayed after the
// fence carries an old resourceVersion and fails with 409; a publish attempt
// at or below the fence is Rejected by the decision functions.
//
// # Size
//
// The API server refuses a ConfigMap whose data values exceed 1 MiB, or
// whose annotations exceed 256 KiB. A Publish is checked before it is sent
// against the whole object (keys, values, annotations and labels, another
// tool's included) and must leave FenceReserve bytes of it free; every
// other write (Verify's fence, Subsume, Retire, a claim, a collection) is
// checked against the API server's own limits only. Since a publish
// over-counts, the data keep FenceReserve free whatever annotations another
// tool adds later: publishes hit ErrTooLarge first, and a fence is refused
// only if something other than this store fills the data values.
//
// # Permissions
//
// The store uses get, create and update on configmaps of one namespace, and
// list for the reconciler's inventory (ListJobs: the ConfigMaps labelled with
// a cluster), and nothing else; deploy/kubernetes/base/rbac.yaml grants exactly
// that.
package kubernetes
