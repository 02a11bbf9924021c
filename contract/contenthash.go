package contract

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
)

// ContentHash fingerprints the request, so that a second trigger of the
// same identity with different content can be refused. Callers in any
// language compute it themselves for the memo "contentHash": it is the
// SHA-256 of the UTF-8 bytes of CanonicalContent, as 64 lowercase hex
// digits. It is defined for valid requests only (Validate returns nil).
//
// The values equal what earlier versions computed (SHA-256 of Go's
// encoding/json form with maxPublishAttempts 0 replaced by 3), which
// running executions carry in their memo; the vectors in
// testdata/contenthash-vectors.json pin them.
func (r FinalizeRequest) ContentHash() string {
	sum := sha256.Sum256([]byte(r.CanonicalContent()))
	return hex.EncodeToString(sum[:])
}

// CanonicalContent is the form ContentHash hashes, one JSON object on one
// line with no whitespace anywhere, its members in exactly this order:
//
//	{"cluster":C,"job":J,"epoch":E,"checkpoint":N,"metadataKey":K,"metadataSha256":S,
//	 "exclusivePrefix":P,"savepoint":true,"maxPublishAttempts":M}
//
// (shown on two lines here only). Rules:
//
//   - "exclusivePrefix" is left out when it is empty, "savepoint" when it is
//     false; when true it is written "savepoint":true.
//   - "maxPublishAttempts" is always written: the request's value, or 3
//     (DefaultMaxPublishAttempts) when it is 0 or absent, so an omitted 3 and
//     an explicit 3 hash alike.
//   - Numbers are base-10 integers: no sign, fraction, exponent or leading
//     zeros. Epoch and checkpoint may exceed 2^53-1 (up to 2^64-1).
//   - Strings are written between double quotes as they are, with nothing
//     escaped. This needs no escaping rules because a valid request holds
//     only these characters: cluster and job are DNS-1123 labels
//     ([a-z0-9-]), metadataKey and exclusivePrefix keys of [A-Za-z0-9._/-],
//     metadataSha256 lowercase hex, none of which JSON escapes.
//
// Any other field a request may gain later stays out of this form unless
// it is added here on purpose, which changes every hash.
//
// An invalid request (which ends Failed) still gets a value: its strings
// are escaped as Go's encoding/json escapes them, so that the hashes
// earlier versions wrote into such executions' memos stay as they were.
func (r FinalizeRequest) CanonicalContent() string {
	b := make([]byte, 0, 256)
	b = append(b, `{"cluster":`...)
	b = appendString(b, r.Cluster)
	b = append(b, `,"job":`...)
	b = appendString(b, r.Job)
	b = append(b, `,"epoch":`...)
	b = strconv.AppendUint(b, r.Epoch, 10)
	b = append(b, `,"checkpoint":`...)
	b = strconv.AppendUint(b, r.Checkpoint, 10)
	b = append(b, `,"metadataKey":`...)
	b = appendString(b, r.MetadataKey)
	b = append(b, `,"metadataSha256":`...)
	b = appendString(b, r.MetadataSHA256)
	if r.ExclusivePrefix != "" {
		b = append(b, `,"exclusivePrefix":`...)
		b = appendString(b, r.ExclusivePrefix)
	}
	if r.Savepoint {
		b = append(b, `,"savepoint":true`...)
	}
	b = append(b, `,"maxPublishAttempts":`...)
	b = strconv.AppendUint(b, uint64(r.MaxAttempts()), 10)
	b = append(b, '}')
	return string(b)
}

// appendString quotes s. For a valid request's strings this is s between
// double quotes; anything else gets encoding/json's escaping, which is what
// earlier versions hashed.
func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}
