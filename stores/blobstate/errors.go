package blobstate

import "errors"

// Definite answers about the bucket's content. Every other error of this
// package is an I/O failure that says nothing about the content.
var (
	// ErrNotFound: no handle blob is stored under the key.
	ErrNotFound = errors.New("state handle not found")
	// ErrCorrupt: the handle blob exists but fails its checksum, does not
	// decode, or belongs to another identity than its key.
	ErrCorrupt = errors.New("state handle corrupt")
	// ErrConflict: the key holds a different valid handle; nothing was
	// written or deleted.
	ErrConflict = errors.New("key holds a different state handle")
	// ErrDataMissing: the checkpoint's metadata file does not exist.
	ErrDataMissing = errors.New("checkpoint data missing")
	// ErrDataCorrupt: the checkpoint's metadata file exists but its SHA-256
	// is not the one the handle records.
	ErrDataCorrupt = errors.New("checkpoint data checksum mismatch")
)
