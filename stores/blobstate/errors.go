package blobstate

import "errors"

// Definite answers about the bucket's content (and stores.ErrHandleConflict:
// the key holds a different valid handle). Every other error of this
// package is an I/O failure that says nothing about the content.
var (
	// ErrNotFound: no handle blob is stored under the key.
	ErrNotFound = errors.New("state handle not found")
	// ErrCorrupt: the handle blob exists but fails its checksum, does not
	// decode, or belongs to another identity than its key.
	ErrCorrupt = errors.New("state handle corrupt")
	// ErrDataMissing: the checkpoint's metadata file does not exist.
	ErrDataMissing = errors.New("checkpoint data missing")
	// ErrDataCorrupt: the checkpoint's metadata file exists but its SHA-256
	// is not the one the handle records.
	ErrDataCorrupt = errors.New("checkpoint data checksum mismatch")
)
