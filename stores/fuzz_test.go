package stores_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/stores"
)

// FuzzJobIDValidate: a name that passes can never escape a ZooKeeper path
// segment or a ConfigMap name or key; one that fails says why.
func FuzzJobIDValidate(f *testing.F) {
	for _, s := range []string{"flink", "a-b", "", "..", "a/b", "-a", "a-", "A", "a\x00", strings.Repeat("a", 64), "ü"} {
		f.Add(s, "job")
	}
	f.Fuzz(func(t *testing.T, cluster, job string) {
		err := stores.JobID{Cluster: cluster, Job: job}.Validate()
		if err != nil {
			var inv *stores.InvalidError
			require.ErrorAs(t, err, &inv)
			require.Contains(t, []string{"cluster", "job"}, inv.Field)
			require.True(t, errors.Is(err, stores.ErrInvalid))
			return
		}
		for _, name := range []string{cluster, job} {
			require.NotEmpty(t, name)
			require.LessOrEqual(t, len(name), stores.MaxNameLength)
			require.NotContains(t, name, "/")
			require.NotContains(t, name, ".")
			require.Equal(t, strings.ToLower(name), name)
			for _, r := range name {
				require.True(t, r < 0x80 && r > 0x20, "printable ASCII only")
			}
		}
	})
}

// FuzzPublicationValidate: validation never panics and every rejection
// names its field.
func FuzzPublicationValidate(f *testing.F) {
	f.Add("c", "j", uint64(1), uint64(1), "h", "t", uint32(1))
	f.Add("c", "j", uint64(0), uint64(0), "", "", uint32(0))
	f.Add("c", "j", uint64(1), uint64(1), "h\n", "t\x7f", uint32(1))
	f.Fuzz(func(t *testing.T, cluster, job string, n, epoch uint64, handle, token string, attempt uint32) {
		p := stores.Publication{
			CheckpointID: stores.CheckpointID{JobID: stores.JobID{Cluster: cluster, Job: job}, Checkpoint: n},
			Epoch:        epoch,
			Reference:    stores.Reference{Handle: handle, Token: token, Attempt: attempt},
		}
		err := p.Validate()
		if err == nil {
			require.NotZero(t, n)
			require.NotZero(t, epoch)
			require.NotZero(t, attempt)
			return
		}
		var inv *stores.InvalidError
		require.ErrorAs(t, err, &inv)
		require.NotEmpty(t, inv.Field)
		require.NotEmpty(t, inv.Rule)
	})
}

// FuzzEntryRoundTrip: whatever is encoded decodes to itself.
func FuzzEntryRoundTrip(f *testing.F) {
	f.Add(uint64(1), true, "handle", "token", uint32(1), false, "fenced", int64(0))
	f.Add(uint64(9), false, "", "token", uint32(7), true, "subsumed", int64(1700000000))
	f.Fuzz(func(t *testing.T, n uint64, published bool, handle, token string, attempt uint32, savepoint bool, reason string, unix int64) {
		e := stores.Entry{Checkpoint: n}
		if published {
			e.Reference = &stores.Reference{Handle: handle, Token: token, Attempt: attempt, Savepoint: savepoint}
		} else {
			e.Tombstone = &stores.Tombstone{Token: token, FencedUpTo: attempt, Reason: stores.Reason(reason), Since: time.Unix(unix%(1<<34), 0).UTC()}
		}
		b, err := stores.EncodeEntry(e, 1<<20)
		if err != nil {
			// Too large, or what DecodeEntry would refuse (invalid UTF-8
			// included): never written.
			if !errors.Is(err, stores.ErrTooLarge) {
				require.ErrorIs(t, err, stores.ErrCorruptState)
			}
			return
		}
		got, err := stores.DecodeEntry(n, b)
		require.NoError(t, err)
		assert.Equal(t, e, got)
	})
}

// FuzzDecodeEntry: arbitrary bytes from a store never panic the decoder,
// and what decodes holds exactly one of a reference or a tombstone.
func FuzzDecodeEntry(f *testing.F) {
	f.Add([]byte(`{"v":1,"published":{"handle":"h","token":"t","attempt":1}}`))
	f.Add([]byte(`{"v":1,"tombstone":{"fencedUpTo":2,"reason":"fenced","since":"2026-01-01T00:00:00Z"}}`))
	f.Add([]byte(`{"v":2}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := stores.DecodeEntry(3, b)
		if err != nil {
			return
		}
		require.False(t, e.Absent())
		require.False(t, e.Reference != nil && e.Tombstone != nil)
		require.Equal(t, uint64(3), e.Checkpoint)
	})
}

// FuzzDecodeJobState: arbitrary bytes from a store never panic the decoder;
// what decodes is Consistent and encodes back to what decodes to itself.
func FuzzDecodeJobState(f *testing.F) {
	f.Add([]byte(`{"v":2,"epoch":7,"owner":"jm","watermark":3,"retired":false,"forgottenEpoch":0}`))
	f.Add([]byte(`{"epoch":7,"owner":"jm","watermark":3}`))
	f.Add([]byte(`{"epoch":0,"watermark":0}`))
	f.Add([]byte(`{"owner":"someone-else"}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := stores.DecodeJobState(b)
		if err != nil {
			require.ErrorIs(t, err, stores.ErrCorruptState)
			return
		}
		require.NoError(t, s.Consistent())
		again, err := stores.EncodeJobState(s)
		require.NoError(t, err)
		got, err := stores.DecodeJobState(again)
		require.NoError(t, err)
		assert.Equal(t, s, got)
	})
}
