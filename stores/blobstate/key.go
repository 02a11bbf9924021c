package blobstate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// HandlesPrefix is the namespace of handle blobs. Checkpoint data may not
// live under it, so that no data prefix can ever cover a handle.
const HandlesPrefix = "handles/"

// MaxKeyLength is the longest object key accepted: S3's limit, in bytes.
const MaxKeyLength = 1024

// Key returns the deterministic key of the handle blob of a checkpoint:
// handles/<cluster>/<job>/<epoch>/<checkpoint>.json with both numbers
// zero-padded to 20 digits (every uint64 fits), so keys sort numerically
// and a retried write lands on the same blob. The identity must be valid.
func Key(id stores.CheckpointID, epoch uint64) string {
	return fmt.Sprintf("%s%s/%s/%020d/%020d.json", HandlesPrefix, id.Cluster, id.Job, epoch, id.Checkpoint)
}

// ParseKey is the inverse of Key: it accepts exactly the keys Key returns
// for a valid identity, so a reference read back from the HA store can be
// resolved without trusting it.
func ParseKey(key string) (stores.CheckpointID, uint64, error) {
	bad := func(rule string) (stores.CheckpointID, uint64, error) {
		return stores.CheckpointID{}, 0, &stores.InvalidError{Field: "key", Rule: fmt.Sprintf("%q: %s", key, rule)}
	}
	rest, ok := strings.CutPrefix(key, HandlesPrefix)
	if !ok {
		return bad("must start with " + HandlesPrefix)
	}
	rest, ok = strings.CutSuffix(rest, ".json")
	if !ok {
		return bad("must end with .json")
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 4 {
		return bad("must be handles/<cluster>/<job>/<epoch>/<checkpoint>.json")
	}
	epoch, err := parsePadded(parts[2])
	if err != nil {
		return bad("epoch: " + err.Error())
	}
	ckpt, err := parsePadded(parts[3])
	if err != nil {
		return bad("checkpoint: " + err.Error())
	}
	id := stores.CheckpointID{JobID: stores.JobID{Cluster: parts[0], Job: parts[1]}, Checkpoint: ckpt}
	if err := stores.ValidateIdentity(id, epoch); err != nil {
		return stores.CheckpointID{}, 0, err
	}
	return id, epoch, nil
}

// parsePadded parses the 20-digit form Key writes and nothing else, so that
// two spellings can never name one identity.
func parsePadded(s string) (uint64, error) {
	if len(s) != 20 {
		return 0, fmt.Errorf("must be 20 digits, got %q", s)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("must be 20 digits, got %q", s)
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("out of range: %q", s)
	}
	return n, nil
}

// validateObjectKey checks a key (or, with dir, a prefix ending in '/')
// chosen by the job manager. Only plain path characters are allowed so that
// every backend stores the key verbatim (fileblob and s3blob escape control
// characters and "../") and the local file of a key is root + "/" + key.
func validateObjectKey(field, key string, dir bool) error {
	bad := func(format string, args ...any) error {
		return &stores.InvalidError{Field: field, Rule: fmt.Sprintf("%q: ", key) + fmt.Sprintf(format, args...)}
	}
	switch {
	case key == "":
		return &stores.InvalidError{Field: field, Rule: "must not be empty"}
	case len(key) > MaxKeyLength:
		return &stores.InvalidError{Field: field, Rule: fmt.Sprintf("must be at most %d bytes, got %d", MaxKeyLength, len(key))}
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
	// fileblob refuses keys ending in its sidecar extension.
	if !dir && strings.HasSuffix(key, ".attrs") {
		return bad("must not end with .attrs")
	}
	return nil
}
