package stores

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// jobStateVersion is the format of an encoded job state. Version 1 is the
// unversioned JSON written before job states carried a version: still
// read, exactly as that encoder wrote it, and rewritten as version 2 by the
// next write of the job.
const jobStateVersion = 2

// jobStateWire is version 2: every field always present, so that a field
// removed by hand is seen as removed, never read as its zero value.
type jobStateWire struct {
	V              int    `json:"v"`
	Epoch          uint64 `json:"epoch"`
	Owner          string `json:"owner"`
	Watermark      uint64 `json:"watermark"`
	Retired        bool   `json:"retired"`
	ForgottenEpoch uint64 `json:"forgottenEpoch"`
}

// The fields of each version. Version 1 wrote epoch and watermark always
// and the others only when not zero (omitempty).
var (
	jobStateFields = []string{"v", "epoch", "owner", "watermark", "retired", "forgottenEpoch"}
	legacyRequired = []string{"epoch", "watermark"}
	legacyOptional = []string{"owner", "retired", "forgottenEpoch"}
)

// Consistent checks a job state against what the decisions can produce: a
// state they cannot reach was not written by this program (or was edited),
// and deciding on it could fence the wrong leader or let a stale one in.
// A job without an owner was never claimed or was forgotten: its epoch is
// its forgotten floor, it has no watermark and is not retired. A claimed
// job's epoch lies above the floor.
func (j JobState) Consistent() error {
	if j.Owner == "" {
		switch {
		case j.Retired:
			return corrupt("job state retired without an owner")
		case j.Epoch != j.ForgottenEpoch:
			return corrupt("job state at epoch %d without an owner (only a forgotten job, epoch %d, has none)", j.Epoch, j.ForgottenEpoch)
		case j.Watermark != 0:
			return corrupt("job state with watermark %d without an owner", j.Watermark)
		}
		return nil
	}
	if err := validateText("owner", j.Owner, MaxOwnerLength); err != nil {
		return corrupt("job state: %v", err)
	}
	if j.Epoch <= j.ForgottenEpoch {
		return corrupt("job state claimed by %q at epoch %d, not above its forgotten epoch %d", j.Owner, j.Epoch, j.ForgottenEpoch)
	}
	return nil
}

// EncodeJobState encodes a job's state as version 2. It refuses a state
// DecodeJobState would refuse: what this program writes it must read back.
func EncodeJobState(s JobState) ([]byte, error) {
	if err := s.Consistent(); err != nil {
		return nil, fmt.Errorf("encode job state: %w", err)
	}
	b, err := json.Marshal(jobStateWire{
		V: jobStateVersion, Epoch: s.Epoch, Owner: s.Owner, Watermark: s.Watermark,
		Retired: s.Retired, ForgottenEpoch: s.ForgottenEpoch,
	})
	if err != nil {
		return nil, fmt.Errorf("encode job state: %w", err)
	}
	return b, nil
}

// DecodeJobState decodes a stored job state, version 2 or the unversioned
// version 1, and refuses with ErrCorruptState anything else: not a JSON
// object, a field missing, null, unknown or of the wrong type, a field
// version 1 would have left out, or a state that is not Consistent. The
// caller names where it read it.
func DecodeJobState(b []byte) (JobState, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil || fields == nil {
		return JobState{}, corrupt("job state %s is not a JSON object", clip(b))
	}
	required, optional := jobStateFields, []string(nil)
	_, versioned := fields["v"]
	if !versioned {
		required, optional = legacyRequired, legacyOptional
	}
	for _, f := range required {
		if raw, ok := fields[f]; !ok || string(raw) == "null" {
			return JobState{}, corrupt("job state %s: field %q missing", clip(b), f)
		}
	}
	for f, raw := range fields {
		if !slices.Contains(required, f) && !slices.Contains(optional, f) {
			return JobState{}, corrupt("job state %s: unknown field %q", clip(b), f)
		}
		if string(raw) == "null" {
			return JobState{}, corrupt("job state %s: field %q is null", clip(b), f)
		}
	}
	var w jobStateWire
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return JobState{}, corrupt("job state %s: %v", clip(b), err)
	}
	if versioned && w.V != jobStateVersion {
		return JobState{}, corrupt("job state %s: unsupported version %d", clip(b), w.V)
	}
	s := JobState{Epoch: w.Epoch, Owner: w.Owner, Watermark: w.Watermark, Retired: w.Retired, ForgottenEpoch: w.ForgottenEpoch}
	if !versioned {
		if err := checkOmitted(fields, s); err != nil {
			return JobState{}, fmt.Errorf("job state %s: %w", clip(b), err)
		}
	}
	if err := s.Consistent(); err != nil {
		return JobState{}, fmt.Errorf("job state %s: %w", clip(b), err)
	}
	return s, nil
}

// checkOmitted refuses a version-1 field present with its zero value: that
// encoder left zero values out, so such a field was written by someone else.
func checkOmitted(fields map[string]json.RawMessage, s JobState) error {
	zero := map[string]bool{"owner": s.Owner == "", "retired": !s.Retired, "forgottenEpoch": s.ForgottenEpoch == 0}
	for _, f := range legacyOptional {
		if _, ok := fields[f]; ok && zero[f] {
			return corrupt("unversioned field %q present with its zero value, which that encoder left out", f)
		}
	}
	return nil
}
