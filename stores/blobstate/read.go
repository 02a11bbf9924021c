package blobstate

import (
	"context"
	"fmt"
	"io"

	"gocloud.dev/gcerrors"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Read returns the verified handle of a checkpoint: ErrNotFound when no
// blob is stored, ErrCorrupt when it fails its checksum or belongs to
// another identity.
func (s *Store) Read(ctx context.Context, id stores.CheckpointID, epoch uint64) (Handle, error) {
	if err := stores.ValidateIdentity(id, epoch); err != nil {
		return Handle{}, fmt.Errorf("read handle of checkpoint %d: %w", id.Checkpoint, err)
	}
	h, _, err := s.read(ctx, Key(id, epoch))
	if err != nil {
		return Handle{}, fmt.Errorf("read handle of checkpoint %d: %w", id.Checkpoint, err)
	}
	return h, nil
}

// ReadKey reads the handle a reference points at; the key must be one Key
// returns.
func (s *Store) ReadKey(ctx context.Context, key string) (Handle, error) {
	id, epoch, err := ParseKey(key)
	if err != nil {
		return Handle{}, fmt.Errorf("read handle: %w", err)
	}
	return s.Read(ctx, id, epoch)
}

// read returns the handle at key and its stored bytes.
func (s *Store) read(ctx context.Context, key string) (Handle, []byte, error) {
	b, err := s.readSmall(ctx, key, MaxEnvelopeSize)
	if err != nil {
		return Handle{}, nil, err
	}
	h, err := DecodeEnvelope(b)
	if err != nil {
		return Handle{}, nil, fmt.Errorf("%s: %w", key, err)
	}
	// A valid handle copied under another key would point a reference at
	// foreign state.
	if got := h.Key(); got != key {
		return Handle{}, nil, fmt.Errorf("%s holds the handle of %s: %w", key, got, ErrCorrupt)
	}
	return h, b, nil
}

// readSmall reads the blob at key, at most limit bytes and one past it, so
// that an oversized blob is recognised without reading it whole (the
// caller refuses it). A missing blob is ErrNotFound.
func (s *Store) readSmall(ctx context.Context, key string, limit int64) ([]byte, error) {
	r, err := s.bucket.NewReader(ctx, key, nil)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", key, s.scrub(err))
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if cerr := r.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, s.scrub(err))
	}
	return b, nil
}
