package blobstate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// Key returns the deterministic key of the handle blob of a checkpoint:
// handles/<cluster>/<job>/<epoch>/<checkpoint>.json with both numbers
// zero-padded to 20 digits (every uint64 fits), so keys sort numerically
// and a retried write lands on the same blob. The identity must be valid.
func Key(id stores.CheckpointID, epoch uint64) string {
	return fmt.Sprintf("%s%s/%s/%020d/%020d.json", stores.HandlesPrefix, id.Cluster, id.Job, epoch, id.Checkpoint)
}

// ParseKey is the inverse of Key: it accepts exactly the keys Key returns
// for a valid identity, so a reference read back from the HA store can be
// resolved without trusting it.
func ParseKey(key string) (stores.CheckpointID, uint64, error) {
	bad := func(rule string) (stores.CheckpointID, uint64, error) {
		return stores.CheckpointID{}, 0, &stores.InvalidError{Field: "key", Rule: fmt.Sprintf("%q: %s", key, rule)}
	}
	rest, ok := strings.CutPrefix(key, stores.HandlesPrefix)
	if !ok {
		return bad("must start with " + stores.HandlesPrefix)
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
