package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// What a store holds is input too: each backend test overwrites a job's
// state or a key with what a person or another program could leave there,
// through the backend's own raw client, then runs the assertions below.
// Every call that would decide on that state must refuse it as
// stores.ErrCorruptState, classified Unknown: never read as zero (a stale
// claim succeeding), never Rejected (a finalization discarding its state),
// never acted on.

// Tampering is one thing found where a job's state or a key should be.
type Tampering struct {
	Name string
	Data string
}

// CorruptJobStates are job states no version of the encoder wrote.
var CorruptJobStates = []Tampering{
	{"null", `null`},
	{"empty object", `{}`},
	{"another program's owner only", `{"owner":"someone-else"}`},
	{"not JSON", `epoch=7`},
	{"a JSON string", `"7"`},
	{"epoch removed", `{"owner":"jm-7","watermark":0}`},
	{"unversioned with an unknown field", `{"epoch":7,"owner":"jm-7","watermark":0,"leader":"x"}`},
	{"unversioned with an empty owner", `{"epoch":7,"owner":"","watermark":0}`},
	{"unversioned with retired false", `{"epoch":7,"owner":"jm-7","watermark":0,"retired":false}`},
	{"epoch as a string", `{"epoch":"7","owner":"jm-7","watermark":0}`},
	{"epoch null", `{"epoch":null,"owner":"jm-7","watermark":0}`},
	{"owner without an epoch", `{"epoch":0,"owner":"jm-7","watermark":0}`},
	{"epoch without an owner", `{"epoch":7,"watermark":0}`},
	{"retired without an owner", `{"epoch":0,"watermark":0,"retired":true}`},
	{"claim not above the forgotten epoch", `{"epoch":7,"owner":"jm-7","watermark":0,"forgottenEpoch":7}`},
	{"unknown version", `{"v":3,"epoch":7,"owner":"jm-7","watermark":0,"retired":false,"forgottenEpoch":0}`},
	{"version 2 missing a field", `{"v":2,"epoch":7,"owner":"jm-7","watermark":0,"retired":false}`},
	{"version 2 with an unknown field", `{"v":2,"epoch":7,"owner":"jm-7","watermark":0,"retired":false,"forgottenEpoch":0,"x":1}`},
}

// CorruptEntries are key values no version of the encoder wrote.
var CorruptEntries = []Tampering{
	{"null", `null`},
	{"empty object", `{}`},
	{"no version", `{"published":{"handle":"h","token":"t","attempt":1}}`},
	{"empty handle", `{"v":1,"published":{"handle":"","token":"t","attempt":1}}`},
	{"empty token", `{"v":1,"published":{"handle":"h","token":"","attempt":1}}`},
	{"attempt 0", `{"v":1,"published":{"handle":"h","token":"t","attempt":0}}`},
	{"unknown field", `{"v":1,"published":{"handle":"h","token":"t","attempt":1,"owner":"x"}}`},
	{"both a reference and a tombstone", `{"v":1,"published":{"handle":"h","token":"t","attempt":1},"tombstone":{"token":"t","fencedUpTo":1,"reason":"fenced","since":"2026-01-02T03:04:05Z"}}`},
	{"tombstone without since", `{"v":1,"tombstone":{"token":"t","fencedUpTo":1,"reason":"fenced"}}`},
	{"tombstone with a zero since", `{"v":1,"tombstone":{"token":"t","fencedUpTo":1,"reason":"fenced","since":"0001-01-01T00:00:00Z"}}`},
	{"tombstone of an unknown reason", `{"v":1,"tombstone":{"token":"t","fencedUpTo":1,"reason":"deleted","since":"2026-01-02T03:04:05Z"}}`},
	{"fence without a token", `{"v":1,"tombstone":{"fencedUpTo":1,"reason":"fenced","since":"2026-01-02T03:04:05Z"}}`},
	{"fence up to attempt 0", `{"v":1,"tombstone":{"token":"t","fencedUpTo":0,"reason":"fenced","since":"2026-01-02T03:04:05Z"}}`},
	{"checkpoint in the value", `{"v":1,"checkpoint":9,"published":{"handle":"h","token":"t","attempt":1}}`},
}

// LegacyJobState is a job state as the unversioned encoder (format version
// 1) wrote it, and what it must read as.
type LegacyJobState struct {
	Data  string
	State stores.JobState
}

// LegacyJobStates cover every field the old encoder left out when zero.
var LegacyJobStates = []LegacyJobState{
	{`{"epoch":0,"watermark":0}`, stores.JobState{}},
	{`{"epoch":7,"owner":"jm-7","watermark":3}`, stores.JobState{Epoch: 7, Owner: "jm-7", Watermark: 3}},
	{`{"epoch":7,"owner":"jm-7","watermark":3,"retired":true}`, stores.JobState{Epoch: 7, Owner: "jm-7", Watermark: 3, Retired: true}},
	{`{"epoch":4,"watermark":0,"forgottenEpoch":4}`, stores.JobState{Epoch: 4, ForgottenEpoch: 4}},
	{`{"epoch":9,"owner":"jm-9","watermark":0,"forgottenEpoch":4}`, stores.JobState{Epoch: 9, Owner: "jm-9", ForgottenEpoch: 4}},
}

// RequireCorrupt asserts that err refuses corrupt state: ErrCorruptState,
// Unknown, never a rejection.
func RequireCorrupt(t *testing.T, err error, call string) {
	t.Helper()
	require.Error(t, err, "%s decided on corrupt state", call)
	assert.ErrorIs(t, err, stores.ErrCorruptState, "%s", call)
	assert.Equal(t, stores.Unknown, stores.OutcomeOf(err), "%s: %v", call, err)
}

// RequireJobRefused asserts that every call on job refuses its corrupt
// state: the claim of a deposed leader (epoch 2) and of a new one, the
// reads, the inventory, and every call on the key of checkpoint n.
func RequireJobRefused(t *testing.T, s stores.ReferenceStore, job stores.JobID, n uint64) {
	t.Helper()
	c := ctx(t)
	RequireCorrupt(t, s.ClaimEpoch(c, job, 2, "jm-2"), "ClaimEpoch(2)")
	RequireCorrupt(t, s.ClaimEpoch(c, job, 99, "jm-99"), "ClaimEpoch(99)")
	_, err := s.ReadJob(c, job)
	RequireCorrupt(t, err, "ReadJob")
	_, err = inventory(t, s).ListJobs(c, job.Cluster)
	RequireCorrupt(t, err, "ListJobs")
	RequireEntryRefused(t, s, stores.CheckpointID{JobID: job, Checkpoint: n})
}

// RequireEntryRefused asserts that every call reading the key of id
// refuses what it holds (or what its job holds): a publish, a verify, a
// subsumption, a quarantine, the reads and every call listing the keys.
func RequireEntryRefused(t *testing.T, s stores.ReferenceStore, id stores.CheckpointID) {
	t.Helper()
	c := ctx(t)
	p := stores.Publication{CheckpointID: id, Epoch: 7, Reference: stores.Reference{Handle: "h", Token: "tok-new", Attempt: 1}}
	RequireCorrupt(t, s.Publish(c, p), "Publish")
	v, err := s.Verify(c, id, "tok-new", 1)
	RequireCorrupt(t, err, "Verify")
	assert.Equal(t, stores.VerdictUnknown, v, "Verify")
	RequireCorrupt(t, s.Subsume(c, id, 7), "Subsume")
	RequireCorrupt(t, inventory(t, s).Quarantine(c, id, "tok"), "Quarantine")
	_, err = s.Read(c, id)
	RequireCorrupt(t, err, "Read")
	RequireKeysRefused(t, s, id.JobID)
}

// RequireKeysRefused asserts that every call listing the job's keys refuses
// a foreign or malformed one among them.
func RequireKeysRefused(t *testing.T, s stores.ReferenceStore, job stores.JobID) {
	t.Helper()
	c := ctx(t)
	_, err := s.List(c, job)
	RequireCorrupt(t, err, "List")
	_, err = s.ListEntries(c, job)
	RequireCorrupt(t, err, "ListEntries")
	RequireCorrupt(t, s.Retire(c, job, 7, false), "Retire")
	_, err = s.CollectTombstones(c, job, time.Now().Add(time.Hour))
	RequireCorrupt(t, err, "CollectTombstones")
}
