package stores

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Field limits, checked before anything is sent.
const (
	MaxTokenLength  = 128
	MaxHandleLength = 4096
	MaxOwnerLength  = 256
)

// Reference is what a published key holds: a pointer to the checkpoint's
// state handle blob, never state itself.
type Reference struct {
	// Handle locates the state handle blob in the state bucket.
	Handle string `json:"handle"`
	// Token identifies the finalization that wrote the reference.
	Token string `json:"token"`
	// Attempt is the publish attempt, chosen by the workflow, starting at 1.
	Attempt uint32 `json:"attempt"`
	// Savepoint marks state the subsumption never discards.
	Savepoint bool `json:"savepoint,omitempty"`
}

// Validate checks the reference's fields.
func (r Reference) Validate() error {
	if err := validateText("handle", r.Handle, MaxHandleLength); err != nil {
		return err
	}
	if err := validateText("token", r.Token, MaxTokenLength); err != nil {
		return err
	}
	if r.Attempt == 0 {
		return invalid("attempt", "must be at least 1")
	}
	return nil
}

// Reason says why a tombstone stands.
type Reason string

const (
	// ReasonFenced: written by Verify so that no attempt up to FencedUpTo can land.
	ReasonFenced Reason = "fenced"
	// ReasonSubsumed: the reference was removed by subsumption.
	ReasonSubsumed Reason = "subsumed"
	// ReasonRetired: the job was retired.
	ReasonRetired Reason = "retired"
	// ReasonRetained: the job was retired and the operator keeps the
	// checkpoint's state (Flink's RETAIN_ON_CANCELLATION): the reconciler
	// reports it and never deletes it.
	ReasonRetained Reason = "retained"
	// ReasonQuarantined: the reconciler found the reference dangling (its
	// handle or data gone) and removed it, so recovery falls back to an
	// older checkpoint instead of failing on this one.
	ReasonQuarantined Reason = "quarantined"
	// ReasonSavepoint: subsumption removed a savepoint's reference. Its
	// data is the operator's, and the tombstone its record in the store.
	ReasonSavepoint Reason = "savepoint"
)

// Kept reports whether the tombstone is the record of state the product
// keeps for the operator (a retirement's retained checkpoint, a removed
// savepoint): no collection, resubmission or forgetting removes it, only
// an operator's release (DecideRelease), and while it stands its
// checkpoint's directory is nobody's to delete.
func (t Tombstone) Kept() bool {
	return t.Reason == ReasonRetained || t.Reason == ReasonSavepoint
}

// Removed reports whether the tombstone replaced a published reference of
// its token (subsumed, retired, retained, quarantined or a savepoint's):
// the token was published, and no attempt of any token can land on the key
// again.
func (t Tombstone) Removed() bool {
	return t.Reason != ReasonFenced && t.Token != ""
}

// Tombstone occupies a key so that no publish attempt up to FencedUpTo of
// Token (and no attempt of any other token) can ever land there.
type Tombstone struct {
	// Token is the finalization the tombstone was written for; empty when a
	// subsumption tombstoned a key nobody had published.
	Token      string    `json:"token,omitempty"`
	FencedUpTo uint32    `json:"fencedUpTo"`
	Reason     Reason    `json:"reason"`
	Since      time.Time `json:"since"`
}

// Entry is the state of one checkpoint key: Absent when both pointers are
// nil, otherwise exactly one of them is set.
type Entry struct {
	// Checkpoint is the key's ID; a store keeps it in the key, not the value.
	Checkpoint uint64     `json:"checkpoint,omitempty"`
	Reference  *Reference `json:"published,omitempty"`
	Tombstone  *Tombstone `json:"tombstone,omitempty"`
}

// Absent reports whether the key holds nothing.
func (e Entry) Absent() bool { return e.Reference == nil && e.Tombstone == nil }

// HoldsToken reports whether the key holds a published reference of token.
func (e Entry) HoldsToken(token string) bool {
	return e.Reference != nil && e.Reference.Token == token
}

// WasPublished reports whether token's reference was published at the key:
// it still holds it, or a tombstone that removed it stands.
func (e Entry) WasPublished(token string) bool {
	return e.HoldsToken(token) || (e.Tombstone != nil && e.Tombstone.Token == token && e.Tombstone.Removed())
}

// JobState is a job's leadership and subsumption state, kept apart from its
// checkpoint keys.
type JobState struct {
	// Epoch is the current leadership incarnation; 0 when never claimed.
	Epoch uint64 `json:"epoch"`
	// Owner is who claimed Epoch, so two claimants of one number cannot both win.
	Owner string `json:"owner,omitempty"`
	// Watermark: no checkpoint at or below it can be published.
	Watermark uint64 `json:"watermark"`
	Retired   bool   `json:"retired,omitempty"`
	// ForgottenEpoch is the last epoch of the job ID's forgotten
	// incarnation (retired, then collected). Claims continue above it, and
	// state of an epoch at or below it belongs to that incarnation.
	ForgottenEpoch uint64 `json:"forgottenEpoch,omitempty"`
}

// Claimed reports whether epoch is the job's standing claim. A job never
// claimed, or forgotten and not claimed again, has none.
func (j JobState) Claimed(epoch uint64) bool {
	return j.Owner != "" && j.Epoch == epoch
}

// Forgotten is the state a retired job is reset to once every key of it
// is collected: only the epoch floor remains.
func (j JobState) Forgotten() JobState {
	return JobState{Epoch: j.Epoch, ForgottenEpoch: j.Epoch}
}

const encodingVersion = 1

type entryWire struct {
	V int `json:"v"`
	Entry
}

// EncodeEntry encodes a non-absent entry and checks it against a backend's
// size limit, so that an oversized value is Rejected before it is sent. An
// entry DecodeEntry would refuse is never written: ErrCorruptState
// (Unknown), since only a bug of ours can build one.
func EncodeEntry(e Entry, limit int) ([]byte, error) {
	e.Checkpoint = 0 // the key holds it
	if err := e.stored(); err != nil {
		return nil, fmt.Errorf("encode entry: refusing what a read would refuse: %w", err)
	}
	b, err := json.Marshal(entryWire{V: encodingVersion, Entry: e})
	if err != nil {
		return nil, fmt.Errorf("encode entry: %w", err)
	}
	if len(b) > limit {
		return nil, fmt.Errorf("encoded entry is %d bytes, limit %d: %w", len(b), limit, ErrTooLarge)
	}
	return b, nil
}

// DecodeEntry decodes a stored entry of checkpoint id. Anything the encoder
// does not write is refused with ErrCorruptState: not version 1, an
// unknown field, neither or both of a reference and a tombstone, or a value
// stored finds wrong. The caller names where it read it.
func DecodeEntry(id uint64, b []byte) (Entry, error) {
	var w entryWire
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return Entry{}, corrupt("entry of checkpoint %d %s: %v", id, clip(b), err)
	}
	if dec.More() {
		return Entry{}, corrupt("entry of checkpoint %d %s: data after the JSON object", id, clip(b))
	}
	if w.V != encodingVersion {
		return Entry{}, corrupt("entry of checkpoint %d %s: unsupported encoding version %d", id, clip(b), w.V)
	}
	if w.Checkpoint != 0 {
		return Entry{}, corrupt("entry of checkpoint %d %s: names checkpoint %d in its value, which the key holds", id, clip(b), w.Checkpoint)
	}
	if err := w.Entry.stored(); err != nil {
		return Entry{}, fmt.Errorf("entry of checkpoint %d %s: %w", id, clip(b), err)
	}
	w.Entry.Checkpoint = id
	return w.Entry, nil
}

// stored checks a decoded entry against what the decisions write: exactly
// one of a valid reference or a tombstone of a known reason, with its time
// and, unless a subsumption tombstoned a key nobody had published, the
// token and the attempt it covers.
func (e Entry) stored() error {
	switch {
	case e.Absent() || (e.Reference != nil && e.Tombstone != nil):
		return corrupt("must hold exactly one of a reference or a tombstone")
	case e.Reference != nil:
		if err := e.Reference.Validate(); err != nil {
			return corrupt("reference: %v", err)
		}
		return nil
	}
	t := e.Tombstone
	switch {
	case !slices.Contains(reasons, t.Reason):
		return corrupt("tombstone of unknown reason %q", t.Reason)
	case t.Since.IsZero():
		return corrupt("tombstone (%s) without since", t.Reason)
	case t.Token == "" && (t.Reason != ReasonSubsumed || t.FencedUpTo != 0):
		return corrupt("tombstone (%s) up to attempt %d without a token (only a subsumption of an absent key has none)", t.Reason, t.FencedUpTo)
	case t.Token == "":
		return nil
	case t.FencedUpTo == 0:
		return corrupt("tombstone (%s) of token %q up to attempt 0", t.Reason, t.Token)
	}
	if err := validateText("token", t.Token, MaxTokenLength); err != nil {
		return corrupt("tombstone: %v", err)
	}
	return nil
}

// reasons are every tombstone reason the decisions write.
var reasons = []Reason{ReasonFenced, ReasonSubsumed, ReasonRetired, ReasonRetained, ReasonQuarantined, ReasonSavepoint}
