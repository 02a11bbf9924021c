// Package blobstate is the blob state store of the checkpoint finalizer: it
// persists a checkpoint's state handle, a small blob of pointers and
// checksums (never state bytes), in a bucket named by a gocloud URL
// (file://, mem://, s3://, gs://, azblob://).
//
// # Contract
//
//   - Write stores a Handle under a key derived only from its identity
//     (cluster, job, epoch, checkpoint; see Key), so a retried activity
//     rewrites the same blob with the same bytes. It refuses (stores.ErrHandleConflict) to
//     replace a different valid handle stored under that key. On a file://
//     bucket the blob, its directory and every directory up to the bucket root
//     are fsynced before Write returns: a nil error means durable.
//   - Read returns the stored handle after verifying the SHA-256 the
//     envelope carries over the handle's canonical bytes, and that the handle
//     belongs to the key it was read from. A missing blob is ErrNotFound; any
//     mismatch, truncation or foreign content is ErrCorrupt.
//   - CheckData verifies that the checkpoint's metadata file exists and has
//     the recorded SHA-256: ErrDataMissing or ErrDataCorrupt, any other error
//     being an I/O failure that says nothing about the data.
//   - Discard deletes every object under the checkpoint's exclusive prefix,
//     then the handle blob. Objects already gone count as deleted, so Discard
//     is idempotent and a second call succeeds. Data first, handle last: an
//     interrupted Discard leaves the handle that says what remains to delete.
//     For a savepoint Discard deletes only the handle blob and never any
//     data: savepoints belong to the operator.
//
// # Safety of deletion
//
// Handle.Validate makes a dangerous deletion unrepresentable: the exclusive
// prefix of a checkpoint is a relative key prefix of plain path characters,
// without empty, "." or ".." segments, outside the reserved "handles/"
// namespace, ending in "chk-<checkpoint id>/" of that very checkpoint, and it
// contains the metadata file. Anything outside it (Flink's "<job>/shared/"
// and "<job>/taskowned/", other checkpoints, savepoints) is never touched.
// Every call validates its input before any I/O: invalid input is an error
// matching stores.ErrInvalid (a *stores.InvalidError naming the field and the
// rule) and nothing is written or deleted.
//
// # Failure semantics
//
// The sentinels (ErrNotFound, ErrCorrupt, stores.ErrHandleConflict, ErrDataMissing,
// ErrDataCorrupt, stores.ErrInvalid) are definite answers about the bucket's
// content. Every other error is an I/O failure (network, permissions, disk,
// cancelled context) and says nothing about the content: the caller retries.
// Write and Discard are idempotent, so retrying them is always safe.
//
// # Local buckets
//
// file:// buckets are opened with fileblob's metadata=skip (its ".attrs"
// sidecar makes concurrent readers of a rewritten blob see EOF) and
// no_tmp_dir (the temporary file is renamed within its directory, never
// across file systems). fileblob never fsyncs, so this package does it.
// Handle keys are plain path characters, so the file of a key is the bucket
// root joined with the key. After a Discard of a local bucket the emptied
// directories of the prefix are removed; a file fileblob cannot list (a
// ".attrs" name, an unreadable directory) makes Discard fail instead of
// silently leaving data behind.
package blobstate
