package contract_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/fixtures/contracttest"
)

// legacyRequest is FinalizeRequest as earlier versions declared it, before
// requests named their owner.
type legacyRequest struct {
	Cluster            string `json:"cluster"`
	Job                string `json:"job"`
	Epoch              uint64 `json:"epoch"`
	Checkpoint         uint64 `json:"checkpoint"`
	MetadataKey        string `json:"metadataKey"`
	MetadataSHA256     string `json:"metadataSha256"`
	ExclusivePrefix    string `json:"exclusivePrefix,omitempty"`
	Savepoint          bool   `json:"savepoint,omitempty"`
	MaxPublishAttempts uint32 `json:"maxPublishAttempts,omitempty"`
}

// legacyContentHash is ContentHash as every earlier version computed it:
// the hashes in running executions' memos.
func legacyContentHash(r contract.FinalizeRequest) string {
	if r.MaxPublishAttempts == 0 {
		r.MaxPublishAttempts = contract.DefaultMaxPublishAttempts
	}
	b, err := json.Marshal(legacyRequest{
		Cluster: r.Cluster, Job: r.Job, Epoch: r.Epoch, Checkpoint: r.Checkpoint, MetadataKey: r.MetadataKey,
		MetadataSHA256: r.MetadataSHA256, ExclusivePrefix: r.ExclusivePrefix, Savepoint: r.Savepoint, MaxPublishAttempts: r.MaxPublishAttempts,
	})
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func TestContentHashVectors(t *testing.T) {
	vectors := contracttest.ContentHashVectors(t)
	require.GreaterOrEqual(t, len(vectors), 8)
	for _, v := range vectors {
		t.Run(v.Name, func(t *testing.T) {
			req := v.FinalizeRequest(t)
			require.NoError(t, req.Validate(), "vectors are valid requests: the hash is defined for those only")
			sum := sha256.Sum256([]byte(v.Canonical))
			require.Equal(t, v.ContentHash, hex.EncodeToString(sum[:]), "the vector's hash is the SHA-256 of its canonical form")

			assert.Equal(t, v.Canonical, req.CanonicalContent())
			assert.Equal(t, v.ContentHash, req.ContentHash())
			assert.Equal(t, v.ContentHash, legacyContentHash(req), "the value earlier versions computed")
		})
	}
}

// The vectors cover what the contract describes.
func TestContentHashVectorsCoverTheRules(t *testing.T) {
	hashes := map[string]string{}
	var prefixless, bigNumber bool
	for _, v := range contracttest.ContentHashVectors(t) {
		req := v.FinalizeRequest(t)
		hashes[v.Name] = v.ContentHash
		prefixless = prefixless || req.Savepoint && req.ExclusivePrefix == ""
		bigNumber = bigNumber || req.Checkpoint > 1<<53
	}
	assert.True(t, prefixless, "a savepoint without exclusivePrefix")
	assert.True(t, bigNumber, "a number above 2^53")
	for _, same := range []string{"max-attempts-3-explicit", "max-attempts-0-explicit", "savepoint-false-explicit"} {
		assert.Equal(t, hashes["checkpoint"], hashes[same], "%s hashes as the request without it", same)
	}
	assert.NotEqual(t, hashes["checkpoint"], hashes["max-attempts-7"])
}

// For any value, valid or not, the explicit form hashes as encoding/json's
// did: no execution's memo changes meaning.
func FuzzContentHashMatchesLegacy(f *testing.F) {
	f.Add("prod-eu", "0a1b", uint64(3), uint64(42), "k/chk-42/_metadata", "ab", "k/chk-42/", false, uint32(0))
	f.Add("c1", "j1", uint64(1<<64-1), uint64(1<<53+1), "savepoints/_metadata", "", "", true, uint32(7))
	f.Add(`a"b\c`, "<j>&", uint64(0), uint64(0), "k\u2028\u2029", "\x00\x1f\x7f", "\xff\xfe", true, uint32(1<<32-1))
	f.Add("ünï", "日本", uint64(10), uint64(1), "a/../b", "\t\n", "/", false, uint32(3))
	f.Fuzz(func(t *testing.T, cluster, job string, epoch, checkpoint uint64, key, sum, prefix string, savepoint bool, attempts uint32) {
		req := contract.FinalizeRequest{
			Cluster: cluster, Job: job, Epoch: epoch, Checkpoint: checkpoint,
			MetadataKey: key, MetadataSHA256: sum, ExclusivePrefix: prefix, Savepoint: savepoint, MaxPublishAttempts: attempts,
		}
		if got, want := req.ContentHash(), legacyContentHash(req); got != want {
			t.Fatalf("%+v: ContentHash %s, earlier versions %s (canonical %s)", req, got, want, req.CanonicalContent())
		}
	})
}
