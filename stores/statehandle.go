package stores

import (
	"fmt"
	"strings"
)

// The state bucket's keys. A finalization request names them and the handle
// blob written for it records them, so both check them by these rules: a
// client before it sends, the worker before it reads or writes anything.

// HandlesPrefix is the namespace of handle blobs. Checkpoint data may not
// live under it, so that no data prefix can ever cover a handle.
const HandlesPrefix = "handles/"

// KeptPrefix is the namespace of an operator's keep marks, one beside each
// handle whose state an operator chose to keep (an abandoned finalization's).
// Checkpoint data may not live under it either.
const KeptPrefix = "kept/"

// MaxKeyLength is the longest object key accepted: S3's limit, in bytes.
const MaxKeyLength = 1024

// ValidateStateHandle checks the fields of a checkpoint's state handle (the
// pointers a finalization request carries); blobstate's package
// documentation says why each rule keeps a deletion safe. A non-nil error is
// an *InvalidError naming the field.
func ValidateStateHandle(id CheckpointID, epoch uint64, metadataKey, metadataSHA256, exclusivePrefix string, savepoint bool) error {
	if err := ValidateIdentity(id, epoch); err != nil {
		return err
	}
	if err := ValidateObjectKey("metadataKey", metadataKey, false); err != nil {
		return err
	}
	if err := validateSHA256("metadataSha256", metadataSHA256); err != nil {
		return err
	}
	if savepoint && exclusivePrefix == "" {
		return nil
	}
	if err := ValidateObjectKey("exclusivePrefix", exclusivePrefix, true); err != nil {
		return err
	}
	if savepoint {
		return nil
	}
	// The prefix must be this checkpoint's own directory: a prefix naming a
	// job, a shared directory or another checkpoint is refused here, before
	// it can reach Discard.
	want := fmt.Sprintf("chk-%d/", id.Checkpoint)
	if exclusivePrefix != want && !strings.HasSuffix(exclusivePrefix, "/"+want) {
		return &InvalidError{Field: "exclusivePrefix", Rule: fmt.Sprintf("%q: must end with %q, the directory of checkpoint %d", exclusivePrefix, want, id.Checkpoint)}
	}
	// The metadata file is part of the checkpoint's exclusive state; outside
	// the prefix it would leak on Discard.
	if !strings.HasPrefix(metadataKey, exclusivePrefix) {
		return &InvalidError{Field: "metadataKey", Rule: fmt.Sprintf("%q: must be under the exclusive prefix %q", metadataKey, exclusivePrefix)}
	}
	return nil
}

// validateSHA256 checks a SHA-256 in the one spelling this package writes:
// 64 lowercase hex digits, so that comparing strings compares checksums
// (a handle blob records the request's checksum as it is).
func validateSHA256(field, s string) error {
	if len(s) != 64 {
		return &InvalidError{Field: field, Rule: fmt.Sprintf("must be 64 lowercase hex digits, got %d characters", len(s))}
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return &InvalidError{Field: field, Rule: fmt.Sprintf("must be 64 lowercase hex digits, found %q at %d", c, i)}
		}
	}
	return nil
}

// ValidateObjectKey checks a key (or, with dir, a prefix ending in '/')
// chosen by the job manager. Only plain path characters are allowed so that
// every backend stores the key verbatim (fileblob and s3blob escape control
// characters and "../") and the local file of a key is root + "/" + key.
func ValidateObjectKey(field, key string, dir bool) error {
	bad := func(format string, args ...any) error {
		return &InvalidError{Field: field, Rule: fmt.Sprintf("%q: ", key) + fmt.Sprintf(format, args...)}
	}
	switch {
	case key == "":
		return &InvalidError{Field: field, Rule: "must not be empty"}
	case len(key) > MaxKeyLength:
		return &InvalidError{Field: field, Rule: fmt.Sprintf("must be at most %d bytes, got %d", MaxKeyLength, len(key))}
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c == '/') {
			return bad("only letters, digits, '.', '_', '-' and '/' are allowed, found %q at %d", c, i)
		}
	}
	if strings.HasPrefix(key, "/") {
		return bad("must be relative to the bucket (no leading '/')")
	}
	body := key
	if dir {
		var ok bool
		if body, ok = strings.CutSuffix(key, "/"); !ok {
			return bad("must end with '/'")
		}
	}
	for _, seg := range strings.Split(body, "/") {
		switch seg {
		case "":
			return bad("must not contain empty segments ('//' or a trailing '/')")
		case ".", "..":
			return bad("must not contain %q segments", seg)
		}
	}
	if strings.HasPrefix(key, HandlesPrefix) {
		return bad("must not be under %q, reserved for handle blobs", HandlesPrefix)
	}
	if strings.HasPrefix(key, KeptPrefix) {
		return bad("must not be under %q, reserved for keep marks", KeptPrefix)
	}
	// fileblob refuses keys ending in its sidecar extension.
	if !dir && strings.HasSuffix(key, ".attrs") {
		return bad("must not end with .attrs")
	}
	return nil
}
