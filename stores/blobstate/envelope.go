package blobstate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// MaxEnvelopeSize bounds a stored handle blob; a larger blob is not one of
// ours and is refused before it is read whole.
const MaxEnvelopeSize = 16 << 10

const envelopeVersion = 1

// envelope is the stored form: the handle's canonical JSON bytes and their
// SHA-256, so a torn, tampered or foreign blob is detected on read.
type envelope struct {
	V      int             `json:"v"`
	Handle json.RawMessage `json:"handle"`
	SHA256 string          `json:"sha256"`
}

// EncodeEnvelope returns the bytes stored for a valid handle. Equal handles
// encode to equal bytes.
func EncodeEnvelope(h Handle) ([]byte, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	return encodeEnvelope(h)
}

func encodeEnvelope(h Handle) ([]byte, error) {
	// encoding/json writes struct fields in declaration order, which makes
	// this the canonical form.
	body, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("encode handle of checkpoint %d: %w", h.Checkpoint, err)
	}
	sum := sha256.Sum256(body)
	b, err := json.Marshal(envelope{V: envelopeVersion, Handle: body, SHA256: hex.EncodeToString(sum[:])})
	if err != nil {
		return nil, fmt.Errorf("encode envelope of checkpoint %d: %w", h.Checkpoint, err)
	}
	return b, nil
}

// DecodeEnvelope decodes and verifies stored bytes. Any failure matches
// ErrCorrupt: the checksum, the encoding, the handle's validity, and
// canonical form (re-encoding the handle must give back exactly b, so
// byte comparison of blobs is handle comparison).
func DecodeEnvelope(b []byte) (Handle, error) {
	corrupt := func(format string, args ...any) (Handle, error) {
		return Handle{}, fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrCorrupt)
	}
	if len(b) > MaxEnvelopeSize {
		return corrupt("%d bytes, limit %d", len(b), MaxEnvelopeSize)
	}
	var env envelope
	if err := strictUnmarshal(b, &env); err != nil {
		return corrupt("decode envelope: %v", err)
	}
	if env.V != envelopeVersion {
		return corrupt("unsupported envelope version %d", env.V)
	}
	// Like CheckData, only the recorded digest is named, never the
	// computed one.
	sum := sha256.Sum256(env.Handle)
	if hex.EncodeToString(sum[:]) != env.SHA256 {
		return corrupt("handle does not have the checksum its envelope records (%q)", env.SHA256)
	}
	var h Handle
	if err := strictUnmarshal(env.Handle, &h); err != nil {
		return corrupt("decode handle: %v", err)
	}
	if err := h.Validate(); err != nil {
		// Reported as corruption, not as invalid input: the caller's
		// request was fine, the stored bytes are not.
		return corrupt("stored handle: %v", err)
	}
	canon, err := encodeEnvelope(h)
	if err != nil {
		return Handle{}, err
	}
	if !bytes.Equal(canon, b) {
		return corrupt("envelope of checkpoint %d is not in canonical form", h.Checkpoint)
	}
	return h, nil
}

// strictUnmarshal refuses unknown fields and trailing data.
func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after JSON value")
	}
	return nil
}
